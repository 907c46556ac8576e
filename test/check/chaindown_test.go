package check

import (
	"encoding/hex"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/crypto"
)

// TestCheck_ChainNodeDownStillChecksTheDatabase: `corridor check` run during an outage of the
// configured chain's node (connections refused, or accepted and never answered) checks the
// database as always and says why the chain checks were skipped. It used to stop before any
// check with "TEST chain: CHAIN_RPC_URL (…): context deadline exceeded; TEST needs chain 84532"
// (30 s later for a silent node), which also read as a wrong chain id.
func TestCheck_ChainNodeDownStillChecksTheDatabase(t *testing.T) {
	bin := corridorBinary(t)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	refused, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedAddr := refused.Addr().String()
	_ = refused.Close()
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = silent.Close() })
	go func() { // accept and never answer, as a hung node
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { _ = c.Close() })
		}
	}()

	for _, c := range []struct{ name, addr, why string }{
		{"refused", refusedAddr, "connection refused"},
		{"silent", silent.Addr().String(), "context deadline exceeded"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command(bin, "check")
			cmd.Env = append(os.Environ(), "DATABASE_URL="+env().DatabaseURL, "CHAIN_RPC_URL=http://"+c.addr,
				"RELAYER_PRIVATE_KEY="+hex.EncodeToString(crypto.FromECDSA(key)), "CHAIN_DIAL_TIMEOUT=2s", "LIVE_CHAIN_RPC_URL=")
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("corridor check: %v\n%s%s", err, out, stderr.String())
			}
			for _, want := range []string{"ok      ledger (trial balance, hash chains, balances)", "ok      idempotency-effects",
				"SKIPPED ledger-vs-chain TEST: not checked against the chain: CHAIN_RPC_URL (http://" + c.addr + "): the node did not answer its chain id",
				"SKIPPED escrow-vs-chain TEST: not checked against the chain", c.why, "check OK"} {
				if !strings.Contains(string(out), want) {
					t.Errorf("output lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(string(out)+stderr.String(), "needs chain") {
				t.Errorf("a node that did not answer is reported as a wrong chain:\n%s%s", out, stderr.String())
			}
		})
	}
}
