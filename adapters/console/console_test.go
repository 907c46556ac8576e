package console

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
	webconsole "github.com/corridorhq/corridor/web/console"
)

func TestSealerRefusesTamperedCookies(t *testing.T) {
	s := sealer{key: []byte(strings.Repeat("k", 32))}
	v := s.seal(cookieState{Token: "tok", Env: "test", Nonce: "n1"})
	st, err := s.open(v)
	if err != nil || st.Token != "tok" || st.Env != "test" || st.Nonce != "n1" {
		t.Fatalf("open(seal) = %+v, %v", st, err)
	}
	other := sealer{key: []byte(strings.Repeat("o", 32))}
	if strings.Contains(v, "tok") {
		t.Fatal("the cookie shows its token")
	}
	flipped := []byte(v)
	flipped[len(flipped)/2] ^= 1
	for _, bad := range []string{"", "x", "!!!", v[:10], string(flipped), other.seal(cookieState{Token: "tok", Env: "live", Nonce: "n1"}), v + "A"} {
		if _, err := s.open(bad); err == nil {
			t.Errorf("open(%q) accepted", bad)
		}
	}
}

func TestCSRFTokens(t *testing.T) {
	s := sealer{key: []byte(strings.Repeat("k", 32))}
	tok := s.csrf("nonce-a")
	if !s.csrfValid("nonce-a", tok) {
		t.Fatal("the session's own token is refused")
	}
	for nonce, presented := range map[string]string{"nonce-b": tok, "nonce-a": "", "": s.csrf(""), "nonce-c": "not base64!"} {
		if s.csrfValid(nonce, presented) {
			t.Errorf("csrfValid(%q, %q) accepted", nonce, presented)
		}
	}
}

func TestFixedDecimals(t *testing.T) {
	for _, c := range []struct {
		in   int64
		dec  int
		want string
	}{{0, 6, "0.000000"}, {1, 6, "0.000001"}, {12_500_000, 6, "12.500000"}, {-1_500_000, 6, "-1.500000"}, {1, 18, "0.000000000000000001"}} {
		if got := fixedDecimals(big.NewInt(c.in), c.dec); got != c.want {
			t.Errorf("fixedDecimals(%d, %d) = %q, want %q", c.in, c.dec, got, c.want)
		}
	}
	if usd(int64(-42)) != "-0.000042" || usd((*big.Int)(nil)) != "—" {
		t.Error("usd formats wrongly")
	}
}

func TestWhenIsUTCTimeElement(t *testing.T) {
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("X", 3600))
	if got := string(when(at)); got != `<time datetime="2026-03-04T04:06:07Z">2026-03-04 04:06:07 UTC</time>` {
		t.Fatalf("when = %s", got)
	}
	if when((*time.Time)(nil)) != "—" {
		t.Fatal("a nil time is not a dash")
	}
}

func TestBalanceChart(t *testing.T) {
	if got := string(balanceChart(ports.Statement{})); !strings.Contains(got, "No postings yet") {
		t.Fatalf("empty chart: %s", got)
	}
	now := time.Now()
	st := ports.Statement{Lines: []ports.StatementLine{
		{Transfer: ledger.Transfer{CreatedAt: now}, After: ledger.Balance{Posted: 100}},
		{Transfer: ledger.Transfer{CreatedAt: now}, After: ledger.Balance{Posted: 40}},
	}}
	got := string(balanceChart(st))
	if !strings.Contains(got, "<polyline") || strings.Contains(got, "style=") || strings.Contains(got, "<script") {
		t.Fatalf("chart: %s", got)
	}
	// Opening, then two steps (a horizontal and a vertical point each).
	points := got[strings.Index(got, `points="`)+8:]
	points = points[:strings.Index(points, `"`)]
	if n := len(strings.Fields(points)); n != 5 {
		t.Fatalf("%d points: %s", n, points)
	}
}

func TestEveryPageParses(t *testing.T) {
	pages, err := webconsole.Pages(funcs)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"signin", "error", "notenant", "keys", "webhooks", "webhook", "events", "wallets", "wallet",
		"payments", "payment", "checkouts", "offramps", "offramp", "cards", "agents", "balances", "entries", "trial", "reconciliation", "accounts", "account"} {
		if pages[name] == nil {
			t.Errorf("no page %s", name)
		}
	}
}

func TestPager(t *testing.T) {
	p := &pager{Skip: 25, Take: 25, Total: 60, path: "/console/keys"}
	if p.From() != 26 || p.To() != 50 || p.Prev() != "/console/keys?skip=0&take=25" || p.Next() != "/console/keys?skip=50&take=25" {
		t.Fatalf("pager: %d %d %s %s", p.From(), p.To(), p.Prev(), p.Next())
	}
	last := &pager{Skip: 50, Take: 25, Total: 60, path: "/x"}
	if last.Next() != "" || last.To() != 60 {
		t.Fatal("last page has a next link")
	}
}

func TestOnceTokens(t *testing.T) {
	s := sealer{key: []byte(strings.Repeat("k", 32))}
	a, b := s.once("nonce-a"), s.once("nonce-a")
	if a == b {
		t.Fatal("two renders drew the same token")
	}
	ra, ok := s.onceValid("nonce-a", a)
	rb, okb := s.onceValid("nonce-a", b)
	if !ok || !okb || ra == rb || ra == "" {
		t.Fatalf("the session's own tokens: %v %v %q %q", ok, okb, ra, rb)
	}
	forged := strings.SplitN(a, ".", 2)[0] + "." + strings.SplitN(b, ".", 2)[1]
	for _, c := range []struct{ nonce, presented string }{
		{"nonce-b", a}, {"nonce-a", ""}, {"", s.once("")}, {"nonce-a", "x.not base64!"}, {"nonce-a", forged}, {"nonce-a", s.csrf("nonce-a")},
	} {
		if _, ok := s.onceValid(c.nonce, c.presented); ok {
			t.Errorf("onceValid(%q, %q) accepted", c.nonce, c.presented)
		}
	}
	// The key is the member's, the action's and the token's: any other of the three is another key.
	k := onceKey("u_1", "/console/keys", ra)
	for _, other := range []string{onceKey("u_2", "/console/keys", ra), onceKey("u_1", "/console/webhooks", ra), onceKey("u_1", "/console/keys", rb)} {
		if other == k {
			t.Fatal("two different forms share an idempotency key")
		}
	}
	if !strings.HasPrefix(k, onceKeyPrefix) || len(k) > 255 {
		t.Fatalf("key %q", k)
	}
}
