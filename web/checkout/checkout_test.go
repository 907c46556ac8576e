package checkout

import (
	"strings"
	"testing"
	"time"
)

func testPage() Page {
	return Page{ID: "chk_test", Amount: "12.50", Currency: "USD", CryptoAmount: "12.500000", CryptoDue: "12.500000", Cryptocurrency: "USDC",
		DepositAddress: "0x00000000000000000000000000000000000000aa", ChainID: 84532,
		PaymentURI: PaymentURI("0x036CbD53842c5426634e7929541eC2318f3dCF7e", 84532, "0x00000000000000000000000000000000000000aa", 12_500_000),
		Status:     "created", Received: "0.000000", AmountBaseUnits: 12_500_000, ExpiresAt: time.Now(), AssetsBase: "/a"}
}

// TestRender_WalletLinkIsTheEIP681URI: html/template would turn an ethereum: link into
// #ZgotmplZ; the validated URI is rendered as it is (its & escaped for the attribute).
func TestRender_WalletLinkIsTheEIP681URI(t *testing.T) {
	p := testPage()
	body, err := Render(p)
	if err != nil {
		t.Fatal(err)
	}
	want := `href="` + strings.ReplaceAll(p.PaymentURI, "&", "&amp;") + `"`
	if !strings.Contains(string(body), want) || strings.Contains(string(body), "ZgotmplZ") {
		t.Fatalf("wallet link: want %s in\n%s", want, body)
	}
	for _, bad := range []string{"javascript:alert(1)", "ethereum:0xabc@1/transfer?address=0x1&uint256=1",
		p.PaymentURI + "&x=<script>", "https://example.com"} {
		p.PaymentURI = bad
		if _, err := Render(p); err == nil {
			t.Errorf("rendered a page with the wallet link %q", bad)
		}
	}
}

// TestRender_Terminal: a completed page shows its transaction and hides what asks for payment;
// an underpaid one says how much arrived; a partly paid open one says so too.
func TestRender_Terminal(t *testing.T) {
	p := testPage()
	p.Status, p.TransactionHash = "completed", "0xfeed"
	body, _ := Render(p)
	for _, want := range []string{`id="pay-section" aria-labelledby="send-heading" hidden`, `<code id="transaction-hash">0xfeed</code>`,
		`Payment completed`, `id="time-left" hidden`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("completed page lacks %s", want)
		}
	}
	p = testPage()
	p.Status, p.FailureReason, p.Received, p.ReceivedBaseUnits = "failed", "underpaid", "4.000000", 4_000_000
	body, _ = Render(p)
	if !strings.Contains(string(body), "Underpaid: 4.000000 USDC arrived of the 12.500000 USDC requested") {
		t.Errorf("underpaid page:\n%s", body)
	}
	p.Status, p.FailureReason = "pending", ""
	body, _ = Render(p)
	if strings.Contains(string(body), `id="partly-paid" aria-live="polite" hidden`) || strings.Contains(string(body), `id="pay-section" aria-labelledby="send-heading" hidden`) {
		t.Errorf("a partly paid open page hides the shortfall or the payment details:\n%s", body)
	}
}

// TestRender_EveryStateHasItsWords: each state of the page has its own status line and detail,
// the network is named, and one confirmation is singular.
func TestRender_EveryStateHasItsWords(t *testing.T) {
	cases := []struct {
		name                  string
		status, reason        string
		received              int64
		seen                  int64
		required              uint64
		wantLabel, wantDetail string
	}{
		{"waiting", "created", "", 0, 0, 3, "Waiting for payment", ""},
		{"seen", "pending", "", 12_500_000, 1, 3, "Payment seen", "1 of 3 confirmations"},
		{"seen, one needed", "pending", "", 12_500_000, 0, 1, "Payment seen", "0 of 1 confirmation"},
		{"completed", "completed", "", 12_500_000, 3, 3, "Payment completed", "Thank you."},
		{"overpaid", "completed", "", 15_000_000, 3, 3, "Payment completed: overpaid", "Overpaid: 15.000000 USDC arrived for the 12.500000 USDC requested"},
		{"expired", "failed", "expired", 0, 0, 3, "Payment request expired", "expired before a payment arrived"},
		{"underpaid", "failed", "underpaid", 4_000_000, 3, 3, "Underpaid", "Underpaid: 4.000000 USDC arrived of the 12.500000 USDC"},
		{"underpaid, the rest late", "failed", "underpaid", 12_500_000, 3, 3, "Underpaid",
			"Paid late: 12.500000 USDC arrived for the 12.500000 USDC requested, part of it after the request expired."},
		{"expired, paid late", "failed", "expired", 4_000_000, 3, 3, "Payment request expired",
			"expired before a payment arrived; 4.000000 USDC arrived after it. Contact the merchant for a refund."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := testPage()
			p.Merchant, p.Status, p.FailureReason, p.Seen, p.Confirmations = "Acme Coffee", c.status, c.reason, c.seen, c.required
			p.ReceivedBaseUnits = c.received
			p.Received = map[int64]string{0: "0.000000", 4_000_000: "4.000000", 12_500_000: "12.500000", 15_000_000: "15.000000"}[c.received]
			body, err := Render(p)
			if err != nil {
				t.Fatal(err)
			}
			page := string(body)
			if !strings.Contains(page, `data-status="`+c.status+`">`+c.wantLabel+`</p>`) || !strings.Contains(page, c.wantDetail) {
				t.Fatalf("want %q and %q in\n%s", c.wantLabel, c.wantDetail, page)
			}
			if !strings.Contains(page, `<strong id="merchant">Acme Coffee</strong>`) || !strings.Contains(page, "Base Sepolia (testnet) (chain id 84532)") {
				t.Fatalf("no merchant or network in\n%s", page)
			}
			wantRule := "once " + map[bool]string{true: "1 confirmation deep", false: "3 confirmations deep"}[c.required == 1]
			if !strings.Contains(page, wantRule) {
				t.Fatalf("the depth rule is not %q in\n%s", wantRule, page)
			}
		})
	}
}
