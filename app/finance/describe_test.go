package finance

import (
	"testing"

	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

func TestDescribeReference(t *testing.T) {
	cases := []struct {
		reference string
		want      Described
	}{
		{"sandbox_deposit:dep_1", Described{ObjectSandboxDeposit, "dep_1", "Sandbox deposit"}},
		{"offramp:pay_1:lock:1", Described{ObjectOfframpPayment, "pay_1", "Off-ramp payment: funds locked"}},
		{"offramp:pay_1:claim-reorg:f_1", Described{ObjectOfframpPayment, "pay_1", "Off-ramp payment: claim reorg"}},
		{"chain:84532:0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef:0",
			Described{ObjectChainTransfer, "0x1234567890abcdef1234567890abcdef1234567890abcdef1234567890abcdef:0", "USDC transfer on Base Sepolia, transaction 0x123456…cdef"}},
		{"chain:999:0xab:2", Described{ObjectChainTransfer, "0xab:2", "USDC transfer on chain 999, transaction 0xab (transfer 3 in it)"}},
		{"chain-reorg:trf_9", Described{ObjectLedgerTransfer, "trf_9", "Reversal of an on-chain transfer dropped by a chain reorganisation"}},
		{"card-auth:cauth_1:capture", Described{ObjectCardAuthorization, "cauth_1", "Card authorization: capture"}},
		{"checkout:chk_1:credit:500", Described{ObjectCheckout, "chk_1", "Checkout payment received"}},
		{"checkout-refund:cre_1", Described{ObjectCheckoutRefund, "cre_1", "Checkout refund"}},
		{"treasury:bkt_1:yield:2026-01-02", Described{ObjectTreasuryBucket, "bkt_1", "Treasury yield for 2026-01-02"}},
		{"something:else", Described{ObjectLedgerTransfer, "trf_x", "Ledger transfer something:else"}},
	}
	for _, c := range cases {
		if got := DescribeReference(c.reference, "trf_x"); got != c.want {
			t.Errorf("%s: got %+v, want %+v", c.reference, got, c.want)
		}
	}
}

// TestBalanceTransaction_Fee: the fee is what the transfer credits to the platform's fee
// accounts, and net = gross − fee for a debit as for a credit.
func TestBalanceTransaction_Fee(t *testing.T) {
	accounts := map[string]ledger.Account{
		"own": {ID: "own", Kind: ledger.KindTenantAvailable}, "fees": {ID: "fees", Kind: ledger.KindPlatformFees},
		"world": {ID: "world", Kind: ledger.KindWorld},
	}
	debit := ports.BalanceMovement{Account: accounts["own"], Amount: -100, Accounts: accounts,
		Transfer: ledger.Transfer{ID: "trf_1", Reference: "offramp:pay_1:deliver:1", Postings: []ledger.Posting{
			{AccountID: "own", Amount: -100}, {AccountID: "world", Amount: 97}, {AccountID: "fees", Amount: 3}}}}
	bt, err := balanceTransaction(debit)
	if err != nil || bt.Net != -100 || bt.Fee != 3 || bt.Gross != -97 || bt.ObjectType != ObjectOfframpPayment || bt.ObjectID != "pay_1" {
		t.Fatalf("debit: %+v %v", bt, err)
	}
	credit := ports.BalanceMovement{Account: accounts["own"], Amount: 50, Accounts: accounts,
		Transfer: ledger.Transfer{ID: "trf_2", Reference: "sandbox_deposit:dep_1", Postings: []ledger.Posting{
			{AccountID: "world", Amount: -50}, {AccountID: "own", Amount: 50}}}}
	if bt, err = balanceTransaction(credit); err != nil || bt.Net != 50 || bt.Fee != 0 || bt.Gross != 50 {
		t.Fatalf("credit: %+v %v", bt, err)
	}
}

// TestClampPage_Export: a CSV export pages up to MaxExportTake rows, JSON up to ports.MaxTake.
func TestClampPage_Export(t *testing.T) {
	if got := clampPage(ports.Page{Take: 5000}, true); got.Take != 5000 {
		t.Fatalf("export page of 5000: %+v", got)
	}
	if got := clampPage(ports.Page{}, true); got.Take != MaxExportTake {
		t.Fatalf("default export page: %+v", got)
	}
	if got := clampPage(ports.Page{Take: 5000}, false); got.Take != ports.MaxTake {
		t.Fatalf("JSON page of 5000: %+v", got)
	}
}

// TestJournalEntryView_Own: a journal line is the caller's own account only when the account is
// its tenant's: a platform share and another tenant's account (redacted) are not, whatever
// number of accounts the caller has.
func TestJournalEntryView_Own(t *testing.T) {
	mine := ledger.Account{ID: "acc_mine", TenantID: "ten_1", Kind: "tenant_available", Reference: "tenant:ten_1:available"}
	share := ledger.Account{ID: "acc_share", Kind: "platform_fees", Reference: "platform:fees@ten_1"}
	theirs := ledger.Account{ID: "acc_theirs", TenantID: "ten_2", Kind: "tenant_available", Reference: "tenant:ten_2:available"}
	v := journalEntryView("ten_1", ports.JournalEntry{Transfer: ledger.Transfer{ID: "trf_1",
		Postings: []ledger.Posting{{AccountID: "acc_mine", Amount: -3}, {AccountID: "acc_share", Amount: 1}, {AccountID: "acc_theirs", Amount: 2}}},
		Accounts: map[string]ledger.Account{"acc_mine": mine, "acc_share": share, "acc_theirs": theirs}})
	if !v.Lines[0].Own || v.Lines[1].Own || v.Lines[2].Own || v.Lines[2].AccountID != "" {
		t.Fatalf("lines %+v", v.Lines)
	}
}
