// Package examples runs every program under examples/ against a throwaway service (make
// examples): each is built once, run with CORRIDOR_URL and CORRIDOR_API_KEY of a fresh tenant,
// and must exit 0 printing what its flow reached.
package examples

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

var env = harness.Shared

// root is the module's root, from this package's directory.
const root = "../.."

// TestExamples/<program>: every example program runs its flow to the end against the service.
func TestExamples(t *testing.T) {
	bin := t.TempDir()
	build := exec.Command("go", "build", "-o", bin+string(filepath.Separator), "./examples/...")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build the examples: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		program string
		want    *regexp.Regexp
	}{
		{"checkout", regexp.MustCompile(`read back chk_\S+: created, amount 131072\.01`)},
		{"safepayment", regexp.MustCompile(`payment pay_\S+ COMPLETED in transaction 0x[0-9a-f]{64}`)},
		{"webhooks", regexp.MustCompile(`verified agent\.created evt_\S+`)},
		{"balances", regexp.MustCompile(`(?s)service balance USDC: 100(\.0+)? available.*trial balance \S+: balanced true`)},
		{"offramp", regexp.MustCompile(`payment ofp_\S+ DELIVERED through \S+ to destination dst_\S+`)},
		{"cards", regexp.MustCompile(`(?s)authorization of 12\.5 USD at Corner Grocery: APPROVED\n.*at Lucky Bets: DECLINED \(MCC_BLOCKED\)`)},
		{"agents", regexp.MustCompile(`(?s)key \S+ for agent agt_\S+, scopes payments:create payments:read wallets:read.*per transaction 25, daily 100, weekly none, monthly 1000 USD`)},
		{"invoices", regexp.MustCompile(`(?s)public view of inv_\S+: SENT, 10 USD on chain \d+, pay to 0x[0-9a-fA-F]{40}\n.*public view of inv_\S+: FUNDED`)},
		{"twofactor", regexp.MustCompile(`(?s)payment of 25\.5 USD: TWOFA_REQUIRED, challenge \S+\n.* SATISFIED for 25\.5 USD.*\npayment pay_\S+ of 25\.5 USD AWAITING_SIGNATURE`)},
		{"treasury", regexp.MustCompile(`sweep swp_\S+ of 60 USD from Operating to Reserve: PROPOSED, payment pay_\S+ AWAITING_SIGNATURE`)},
		{"claims", regexp.MustCompile(`(?s)claim link: 12\.5 USD to [^\n]+, OPEN\n.*payment ofp_\S+ DELIVERED through \S+ to destination dst_\S+`)},
		{"ramps", regexp.MustCompile(`ramp rmp_\S+ CONFIRMED in transaction 0x[0-9a-f]{64}, fiat reference simfiat_on_\S+`)},
	} {
		t.Run(tc.program, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(filepath.Join(bin, tc.program))
			cmd.Env = append(os.Environ(), "CORRIDOR_URL="+env().BaseURL, "CORRIDOR_API_KEY="+env().NewTenant(t).RootKey,
				"CORRIDOR_RECIPIENT_API_KEY="+env().NewTenant(t).RootKey) // the off-ramp example's other side
			out, err := cmd.CombinedOutput()
			if err != nil || !tc.want.Match(out) {
				t.Fatalf("%s: %v\n%s", tc.program, err, out)
			}
		})
	}
}
