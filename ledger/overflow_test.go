package ledger

import (
	"math"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

const maxInt = math.MaxInt64

func TestApply_Overflow(t *testing.T) {
	accounts := testAccounts()
	tests := []struct {
		name     string
		spec     TransferSpec
		balances map[string]Balance
		wantCode core.Code
		want     map[string]Balance
	}{
		{name: "moving MaxInt64 is exact", spec: postedSpec("p", Move(worldID, bobID, maxInt)...),
			balances: map[string]Balance{worldID: {}, bobID: {}},
			want:     map[string]Balance{worldID: {Posted: -maxInt}, bobID: {Posted: maxInt}}},
		{name: "a credit past MaxInt64 overflows", spec: postedSpec("p", Move(worldID, bobID, 10)...),
			balances: map[string]Balance{worldID: {}, bobID: {Posted: maxInt - 5}}, wantCode: core.CodeAmountOverflow},
		{name: "a credit up to MaxInt64 is exact", spec: postedSpec("p", Move(worldID, bobID, 5)...),
			balances: map[string]Balance{worldID: {}, bobID: {Posted: maxInt - 5}},
			want:     map[string]Balance{worldID: {Posted: -5}, bobID: {Posted: maxInt}}},
		{name: "a debit past MinInt64 overflows", spec: postedSpec("p", Move(worldID, bobID, 10)...),
			balances: map[string]Balance{worldID: {Posted: -maxInt + 5}, bobID: {}}, wantCode: core.CodeAmountOverflow},
		{name: "a debit to exactly MinInt64 is refused", spec: postedSpec("p", Move(worldID, bobID, 10)...),
			balances: map[string]Balance{worldID: {Posted: -maxInt + 9}, bobID: {}}, wantCode: core.CodeAmountOverflow},
		{name: "a hold whose available would overflow", spec: pendingSpec("h", worldID, bobID, 10, time.Time{}),
			balances: map[string]Balance{worldID: {Posted: -maxInt + 5}, bobID: {}}, wantCode: core.CodeAmountOverflow},
		{name: "pending debits past MaxInt64 overflow", spec: pendingSpec("h", worldID, bobID, 10, time.Time{}),
			balances: map[string]Balance{worldID: {Posted: maxInt, PendingDebits: maxInt - 5}, bobID: {}}, wantCode: core.CodeAmountOverflow},
		{name: "pending credits past MaxInt64 overflow", spec: pendingSpec("h", worldID, bobID, 10, time.Time{}),
			balances: map[string]Balance{worldID: {}, bobID: {PendingCredits: maxInt - 5}}, wantCode: core.CodeAmountOverflow},
		{name: "MinInt64 as an amount is refused", spec: postedSpec("p", Posting{worldID, math.MinInt64}, Posting{bobID, maxInt}, Posting{aliceID, 1}),
			balances: map[string]Balance{worldID: {}, bobID: {}, aliceID: {}}, wantCode: core.CodeValidationFailed},
		{name: "legs whose sum overflows are refused", spec: postedSpec("p", Posting{bobID, maxInt}, Posting{aliceID, maxInt}, Posting{worldID, -maxInt}),
			balances: map[string]Balance{worldID: {}, bobID: {}, aliceID: {}}, wantCode: core.CodeAmountOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			before := cloneBalances(tc.balances)
			res, err := Apply(ApplyInput{Spec: tc.spec, TransferID: newTransferID(), Now: t0, Accounts: accounts, Balances: tc.balances})
			if got := codeOf(t, err); got != tc.wantCode {
				t.Fatalf("code = %q, want %q (err %v)", got, tc.wantCode, err)
			}
			if err == nil {
				for id, want := range tc.want {
					if res.Balances[id] != want {
						t.Errorf("%s = %+v, want %+v", id, res.Balances[id], want)
					}
				}
			}
			for id, b := range before {
				if tc.balances[id] != b {
					t.Fatalf("input balance %s changed", id)
				}
			}
		})
	}
}

func TestApply_OverflowOnReversalAndPost(t *testing.T) {
	accounts := testAccounts()
	t.Run("reversing MaxInt64 is exact", func(t *testing.T) {
		move := &StoredTransfer{Transfer: Transfer{ID: newTransferID(), Reference: "m", Type: TypePosted, Environment: core.EnvTest,
			Asset: AssetUSDC, Postings: sortedPostings(Move(worldID, bobID, maxInt)), CreatedAt: t0}, State: TransferState{Status: StatusPosted}}
		balances := map[string]Balance{worldID: {Posted: -maxInt}, bobID: {Posted: maxInt}}
		res, err := Apply(ApplyInput{Spec: reversalSpec("r", move.Transfer.ID), TransferID: newTransferID(), Now: t0, Accounts: accounts, Balances: balances, Target: move})
		if err != nil {
			t.Fatal(err)
		}
		if res.Balances[worldID] != (Balance{}) || res.Balances[bobID] != (Balance{}) {
			t.Fatalf("balances = %+v", res.Balances)
		}
	})
	t.Run("posting a MaxInt64 hold is exact", func(t *testing.T) {
		hold := &StoredTransfer{Transfer: Transfer{ID: newTransferID(), Reference: "h", Type: TypePending, Environment: core.EnvTest,
			Asset: AssetUSDC, Postings: sortedPostings(Move(aliceID, bobID, maxInt)), CreatedAt: t0}, State: TransferState{Status: StatusPending}}
		balances := map[string]Balance{aliceID: {Posted: maxInt, PendingDebits: maxInt}, bobID: {PendingCredits: maxInt}}
		res, err := Apply(ApplyInput{Spec: postSpec("p", hold.Transfer.ID, maxInt), TransferID: newTransferID(), Now: t0, Accounts: accounts, Balances: balances, Target: hold})
		if err != nil {
			t.Fatal(err)
		}
		if res.Balances[aliceID] != (Balance{}) || res.Balances[bobID] != (Balance{Posted: maxInt}) {
			t.Fatalf("balances = %+v", res.Balances)
		}
	})
}

func TestBalance_Validate(t *testing.T) {
	tests := []struct {
		name     string
		balance  Balance
		wantCode core.Code
	}{
		{"zero", Balance{}, ""},
		{"extremes", Balance{Posted: -maxInt}, ""},
		{"full reservation", Balance{Posted: maxInt, PendingDebits: maxInt, PendingCredits: maxInt}, ""},
		{"MinInt64 posted", Balance{Posted: math.MinInt64}, core.CodeInternal},
		{"negative pending debits", Balance{PendingDebits: -1}, core.CodeInternal},
		{"negative pending credits", Balance{PendingCredits: -1}, core.CodeInternal},
		{"available below -MaxInt64", Balance{Posted: -maxInt, PendingDebits: 1}, core.CodeAmountOverflow},
		{"available overflowing", Balance{Posted: -2, PendingDebits: maxInt}, core.CodeAmountOverflow},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := codeOf(t, tc.balance.Validate()); got != tc.wantCode {
				t.Fatalf("code = %q, want %q", got, tc.wantCode)
			}
		})
	}
	t.Run("Available of an invalid balance panics", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		_ = Balance{Posted: -maxInt, PendingDebits: 1}.Available()
	})
}

func TestTrialBalance_Overflow(t *testing.T) {
	accounts := testAccounts()
	list := []Account{accounts[aliceID], accounts[bobID]}
	_, err := TrialBalance(list, map[string]Balance{aliceID: {Posted: maxInt}, bobID: {Posted: 1}})
	if codeOf(t, err) != core.CodeAmountOverflow {
		t.Fatalf("err = %v, want AMOUNT_OVERFLOW", err)
	}
}
