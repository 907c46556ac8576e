package payouts

import (
	"context"
	"crypto/rand"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/test/harness"
)

func randomAddress(t *testing.T) common.Address {
	t.Helper()
	var a common.Address
	if _, err := rand.Read(a[:]); err != nil {
		t.Fatal(err)
	}
	return a
}

// fundSettlement gives the service's settlement account (the relayer) USDC to pay out from.
func fundSettlement(t *testing.T, baseUnits int64) {
	t.Helper()
	if _, err := env().Chain.MintUSDC(context.Background(), env().Chain.RelayerAddress(), big.NewInt(baseUnits)); err != nil {
		t.Fatal(err)
	}
}

func TestOnchainPayout_DeliversUSDCToTheAddress(t *testing.T) {
	t.Parallel()
	fundSettlement(t, 50_000_000)
	p := newPair(t, "30")
	to := randomAddress(t)
	p.recipient.Root.Post("/v1/payout-destinations", map[string]any{"type": "ONCHAIN_WALLET", "asset": "USDC",
		"network": "eip155:84532", "address": to.Hex()}).Expect(t, 201)

	m := p.create(t, "12.5")
	quotes := m["quotes"].([]any)
	if m["status"] != "AWAITING_RECIPIENT_CONFIRMATION" || len(quotes) != 1 {
		t.Fatalf("create %v", m)
	}
	q := quotes[0].(map[string]any)
	// The onchain rail's terms: a flat network fee, delivery in about a block.
	fees := q["fees"].(map[string]any)
	if q["provider"] != "onchain" || q["destinationCurrency"] != "USDC" || q["destinationAmountMinor"] != "12490000" ||
		fees["networkFeeMinor"] != "10000" || fees["providerFeeMinor"] != "0" || q["estimatedDeliverySeconds"] != float64(30) {
		t.Fatalf("onchain quote %v", q)
	}
	id := m["paymentId"].(string)
	if c := selectAndConfirm(t, p, id, "onchain"); c["status"] != "FUNDS_LOCKED" {
		t.Fatalf("confirm %v", c)
	}
	final := waitStatus(t, p.sender.Root, id, "DELIVERED")
	if final["deliveredAt"] == nil {
		t.Fatalf("delivered %v", final)
	}
	got, err := env().Chain.USDCBalance(context.Background(), to)
	if err != nil {
		t.Fatal(err)
	}
	if got.Int64() != 12_490_000 {
		t.Fatalf("the address holds %s base units, want 12490000", got)
	}
	// DESIGN: locked → provider:onchain:clearing → world:ONCHAIN_WALLET and fees.
	l := harness.PaymentLedger(t, env().DatabaseURL, id)
	if l["world:ONCHAIN_WALLET"] != 12_490_000 || l["platform:fees"] != 10_000 || l["provider:onchain:clearing"] != 0 ||
		l["tenant:"+p.sender.ID+":available"] != -12_500_000 {
		t.Fatalf("ledger %v", l)
	}
	harness.ExpectServiceBalance(t, p.sender.Root, 17_500_000, 0)
	ledgerSumZero(t, p.sender, p.recipient)
	rec := p.sender.Root.Get("/v1/ledger/reconciliation").Expect(t, 200).JSON(t)
	if rec["totals"].(map[string]any)["drift"] != "0" {
		t.Fatalf("reconciliation %v", rec)
	}
}

func TestOnchainPayout_OtherNetworkHasNoProvider(t *testing.T) {
	t.Parallel()
	p := newPair(t, "5")
	p.recipient.Root.Post("/v1/payout-destinations", map[string]any{"type": "ONCHAIN_WALLET", "asset": "USDC",
		"network": "eip155:8453", "address": randomAddress(t).Hex()}).Expect(t, 201)
	m := p.create(t, "1")
	if m["status"] != "COMPLIANCE_HOLD" || m["holdReasons"].([]any)[0] != "PROVIDER_UNAVAILABLE" {
		t.Fatalf("a Base mainnet address in TEST: %v", m)
	}
}

func TestWalletBPayout_QuotedAndDelivered(t *testing.T) {
	t.Parallel()
	p := newPair(t, "30")
	p.recipient.Root.Post("/v1/payout-destinations", map[string]any{"type": "APP_WALLET_B", "handle": "janedoe"}).Expect(t, 201)
	p.recipient.Root.Post("/v1/payout-destinations", map[string]any{"type": "APP_WALLET_A", "email": "jane@example.com"}).Expect(t, 201)
	m := p.create(t, "10")
	byProvider := map[string]map[string]any{}
	for _, q := range m["quotes"].([]any) {
		byProvider[q.(map[string]any)["provider"].(string)] = q.(map[string]any)
	}
	a, b := byProvider["wallet_a"], byProvider["wallet_b"]
	if a == nil || b == nil {
		t.Fatalf("quotes %v", m["quotes"])
	}
	// wallet_b: 0.5% + 0.25 fixed, a minute; wallet_a: 1%, five minutes.
	fee := func(q map[string]any) any { return q["fees"].(map[string]any)["providerFeeMinor"] }
	if fee(b) != "30" || b["destinationAmountMinor"] != "970" || b["estimatedDeliverySeconds"] != float64(60) ||
		fee(a) != "10" || a["destinationAmountMinor"] != "990" || a["estimatedDeliverySeconds"] != float64(300) {
		t.Fatalf("wallet_a %v wallet_b %v", a, b)
	}
	id := m["paymentId"].(string)
	selectAndConfirm(t, p, id, "wallet_b")
	waitStatus(t, p.sender.Root, id, "DELIVERED")
	l := harness.PaymentLedger(t, env().DatabaseURL, id)
	if l["world:APP_WALLET_B"] != 9_700_000 || l["platform:fees"] != 300_000 {
		t.Fatalf("ledger %v", l)
	}
	ledgerSumZero(t, p.sender, p.recipient)
}
