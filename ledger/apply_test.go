package ledger

import (
	"reflect"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Shared fixtures of the Apply tables.
var (
	alice100     = map[string]Balance{aliceID: {Posted: 100}, bobID: {}, worldID: {}, feesID: {}}
	openHold     = storedHold(60, t0.Add(time.Minute), StatusPending)
	aliceHolding = map[string]Balance{aliceID: {Posted: 100, PendingDebits: 60}, bobID: {PendingCredits: 60}}
	expiredHold  = storedHold(60, t0, StatusPending)
	move         = storedMove(40, StatusPosted)
	afterMove    = map[string]Balance{aliceID: {Posted: 60}, bobID: {Posted: 40}}
)

type applyCase struct {
	name       string
	spec       TransferSpec
	balances   map[string]Balance
	accounts   map[string]Account // nil: the standard accounts.
	target     *StoredTransfer
	wantCode   core.Code
	want       map[string]Balance
	wantStatus TransferStatus // of the target after the transfer
}

// postedCases cover immediate transfers and the NonNegative rule.
func postedCases() []applyCase {
	return []applyCase{
		{name: "posted moves funds", spec: postedSpec("p", Move(aliceID, bobID, 30)...), balances: alice100,
			want: map[string]Balance{aliceID: {Posted: 70}, bobID: {Posted: 30}}},
		{name: "posted may spend the whole available", spec: postedSpec("p", Move(aliceID, bobID, 100)...), balances: alice100,
			want: map[string]Balance{aliceID: {Posted: 0}, bobID: {Posted: 100}}},
		{name: "posted beyond available is insufficient funds", spec: postedSpec("p", Move(aliceID, bobID, 101)...),
			balances: alice100, wantCode: core.CodeInsufficientFunds},
		{name: "a world account may go negative", spec: postedSpec("p", Move(worldID, aliceID, 500)...), balances: alice100,
			want: map[string]Balance{worldID: {Posted: -500}, aliceID: {Posted: 600}}},
		{name: "three legs with a fee", spec: postedSpec("p", Posting{aliceID, -100}, Posting{bobID, 97}, Posting{feesID, 3}),
			balances: alice100, want: map[string]Balance{aliceID: {}, bobID: {Posted: 97}, feesID: {Posted: 3}}},
		{name: "open holds reduce what can be spent", spec: postedSpec("p", Move(aliceID, feesID, 41)...),
			balances: map[string]Balance{aliceID: {Posted: 100, PendingDebits: 60}, feesID: {}}, wantCode: core.CodeInsufficientFunds},
		{name: "pending credits cannot be spent", spec: postedSpec("p", Move(bobID, feesID, 1)...),
			balances: map[string]Balance{bobID: {PendingCredits: 60}, feesID: {}}, wantCode: core.CodeInsufficientFunds},
		{name: "a credit to an overdrawn account is allowed", spec: postedSpec("p", Move(worldID, aliceID, 5)...),
			balances: map[string]Balance{aliceID: {Posted: 10, PendingDebits: 20}, worldID: {}},
			want:     map[string]Balance{aliceID: {Posted: 15, PendingDebits: 20}, worldID: {Posted: -5}}},
	}
}

// holdCases cover two-phase holds: reserve, post in full or in part, void, expire.
func holdCases() []applyCase {
	return []applyCase{
		{name: "pending reserves without moving", spec: pendingSpec("h", aliceID, bobID, 60, time.Time{}), balances: alice100,
			want: aliceHolding},
		{name: "pending beyond available is insufficient funds", spec: pendingSpec("h", aliceID, bobID, 101, time.Time{}),
			balances: alice100, wantCode: core.CodeInsufficientFunds},
		{name: "pending expiring in the past is refused", spec: pendingSpec("h", aliceID, bobID, 1, t0.Add(-time.Second)),
			balances: alice100, wantCode: core.CodeValidationFailed},
		{name: "full post moves pending to posted", spec: postSpec("post", openHold.Transfer.ID, 60), balances: aliceHolding,
			target: openHold, wantStatus: StatusPosted, want: map[string]Balance{aliceID: {Posted: 40}, bobID: {Posted: 60}}},
		{name: "partial post releases the remainder", spec: postSpec("post", openHold.Transfer.ID, 25), balances: aliceHolding,
			target: openHold, wantStatus: StatusPosted, want: map[string]Balance{aliceID: {Posted: 75}, bobID: {Posted: 25}}},
		{name: "over-posting is refused", spec: postSpec("post", openHold.Transfer.ID, 61), balances: aliceHolding,
			target: openHold, wantCode: core.CodeValidationFailed},
		{name: "posting an expired hold is invalid state", spec: postSpec("post", expiredHold.Transfer.ID, 60),
			balances: aliceHolding, target: expiredHold, wantCode: core.CodeInvalidState},
		{name: "voiding an expired hold releases it", spec: voidSpec("void", expiredHold.Transfer.ID), balances: aliceHolding,
			target: expiredHold, wantStatus: StatusVoided, want: map[string]Balance{aliceID: {Posted: 100}, bobID: {}}},
		{name: "void releases an open hold", spec: voidSpec("void", openHold.Transfer.ID), balances: aliceHolding,
			target: openHold, wantStatus: StatusVoided, want: map[string]Balance{aliceID: {Posted: 100}, bobID: {}}},
		{name: "posting a posted hold is invalid state", spec: postSpec("post", openHold.Transfer.ID, 60), balances: aliceHolding,
			target: withStatus(openHold, StatusPosted), wantCode: core.CodeInvalidState},
		{name: "voiding a voided hold is invalid state", spec: voidSpec("void", openHold.Transfer.ID), balances: aliceHolding,
			target: withStatus(openHold, StatusVoided), wantCode: core.CodeInvalidState},
		{name: "voiding a posted hold is invalid state", spec: voidSpec("void", openHold.Transfer.ID), balances: aliceHolding,
			target: withStatus(openHold, StatusPosted), wantCode: core.CodeInvalidState},
		{name: "posting a transfer that is not a hold is invalid state", spec: postSpec("post", move.Transfer.ID, 1),
			balances: afterMove, target: move, wantCode: core.CodeInvalidState},
		{name: "posting a missing hold is transfer not found", spec: postSpec("post", newTransferID(), 1),
			balances: aliceHolding, wantCode: core.CodeTransferNotFound},
		{name: "a hold of another environment is not found", spec: inLive(postSpec("post", openHold.Transfer.ID, 1)),
			balances: aliceHolding, target: openHold, wantCode: core.CodeTransferNotFound},
	}
}

// reversalAndRefusalCases cover reversals and refusals of bad input or corrupt rows.
func reversalAndRefusalCases() []applyCase {
	return []applyCase{
		{name: "reversal negates a posted transfer", spec: reversalSpec("rev", move.Transfer.ID), balances: afterMove,
			target: move, wantStatus: StatusReversed, want: map[string]Balance{aliceID: {Posted: 100}, bobID: {}}},
		{name: "reversing twice is invalid state", spec: reversalSpec("rev", move.Transfer.ID), balances: afterMove,
			target: withStatus(move, StatusReversed), wantCode: core.CodeInvalidState},
		{name: "reversing a hold is invalid state", spec: reversalSpec("rev", openHold.Transfer.ID), balances: aliceHolding,
			target: openHold, wantCode: core.CodeInvalidState},
		{name: "reversal needs the funds back", spec: reversalSpec("rev", move.Transfer.ID),
			balances: map[string]Balance{aliceID: {Posted: 60}, bobID: {Posted: 39}}, target: move, wantCode: core.CodeInsufficientFunds},
		{name: "unknown account is not found", spec: postedSpec("p", Move(aliceID, core.NewID(core.PrefixAccount), 1)...),
			balances: alice100, wantCode: core.CodeAccountNotFound},
		{name: "an account of another environment is not found", spec: postedSpec("p", Move(aliceID, liveID, 1)...),
			balances: map[string]Balance{aliceID: {Posted: 100}, liveID: {}}, wantCode: core.CodeAccountNotFound},
		{name: "an account of another asset is refused", spec: postedSpec("p", Move(aliceID, usdID, 1)...),
			balances: map[string]Balance{aliceID: {Posted: 100}, usdID: {}}, wantCode: core.CodeValidationFailed},
		{name: "a balance the store did not load is an internal error", spec: postedSpec("p", Move(worldID, aliceID, 1)...),
			balances: map[string]Balance{aliceID: {}}, wantCode: core.CodeInternal},
		{name: "a corrupt balance row is an internal error", spec: postedSpec("p", Move(worldID, aliceID, 1)...),
			balances: map[string]Balance{aliceID: {PendingDebits: -1}, worldID: {}}, wantCode: core.CodeInternal},
		{name: "a corrupt account row is an internal error", spec: postedSpec("p", Move(worldID, aliceID, 1)...),
			balances: alice100, accounts: withAccount(testAccounts(), Account{ID: aliceID, Environment: core.EnvTest, Asset: AssetUSDC}),
			wantCode: core.CodeInternal},
		{name: "releasing more than a balance row holds is an internal error", spec: voidSpec("void", openHold.Transfer.ID),
			balances: map[string]Balance{aliceID: {Posted: 100, PendingDebits: 10}, bobID: {PendingCredits: 60}},
			target:   openHold, wantCode: core.CodeInternal},
		{name: "an unbalanced spec is refused", spec: postedSpec("p", Posting{aliceID, -1}, Posting{bobID, 2}),
			balances: alice100, wantCode: core.CodeValidationFailed},
	}
}

func TestApply(t *testing.T) {
	accounts := testAccounts()
	tests := append(append(postedCases(), holdCases()...), reversalAndRefusalCases()...)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := ApplyInput{Spec: tc.spec, TransferID: newTransferID(), Now: t0, Accounts: accounts, Balances: tc.balances, Target: tc.target}
			if tc.accounts != nil {
				in.Accounts = tc.accounts
			}
			res, err := Apply(in)
			if got := codeOf(t, err); got != tc.wantCode {
				t.Fatalf("code = %q, want %q (err %v)", got, tc.wantCode, err)
			}
			if err != nil {
				return
			}
			if !reflect.DeepEqual(res.Balances, tc.want) {
				t.Errorf("balances = %+v, want %+v", res.Balances, tc.want)
			}
			checkTargetOutcome(t, res, tc.target, tc.wantStatus)
		})
	}
}

func checkTargetOutcome(t *testing.T, res Result, target *StoredTransfer, wantStatus TransferStatus) {
	t.Helper()
	if target == nil {
		if res.Target != nil {
			t.Fatalf("target = %+v, want none", res.Target)
		}
		return
	}
	if res.Target == nil || res.Target.State != (TransferState{Status: wantStatus, ResolvedByID: res.Transfer.ID}) {
		t.Fatalf("target = %+v, want status %s resolved by %s", res.Target, wantStatus, res.Transfer.ID)
	}
	if res.Target.Transfer.ID != target.Transfer.ID {
		t.Fatalf("target id = %s, want %s", res.Target.Transfer.ID, target.Transfer.ID)
	}
}

func withStatus(s *StoredTransfer, status TransferStatus) *StoredTransfer {
	out := *s
	out.State = TransferState{Status: status, ResolvedByID: newTransferID()}
	return &out
}

func withAccount(accounts map[string]Account, a Account) map[string]Account {
	out := map[string]Account{}
	for id, acc := range accounts {
		out[id] = acc
	}
	out[a.ID] = a
	return out
}

func inLive(s TransferSpec) TransferSpec {
	s.Environment = core.EnvLive
	return s
}

func TestApply_RecordedTransfer(t *testing.T) {
	accounts := testAccounts()
	hold := storedHold(60, t0.Add(time.Minute), StatusPending)
	tests := []struct {
		name         string
		spec         TransferSpec
		target       *StoredTransfer
		wantPostings []Posting
		wantState    TransferState
	}{
		{name: "posted keeps its legs sorted", spec: postedSpec("p", Posting{worldID, -5}, Posting{aliceID, 5}),
			wantPostings: sortedPostings([]Posting{{aliceID, 5}, {worldID, -5}}), wantState: TransferState{Status: StatusPosted}},
		{name: "pending is born pending", spec: pendingSpec("h", worldID, aliceID, 5, time.Time{}),
			wantPostings: sortedPostings(Move(worldID, aliceID, 5)), wantState: TransferState{Status: StatusPending}},
		{name: "post records the posted legs", spec: postSpec("post", hold.Transfer.ID, 25), target: hold,
			wantPostings: sortedPostings(Move(aliceID, bobID, 25)), wantState: TransferState{Status: StatusPosted}},
		{name: "void records the released legs", spec: voidSpec("void", hold.Transfer.ID), target: hold,
			wantPostings: sortedPostings(Move(aliceID, bobID, 60)), wantState: TransferState{Status: StatusVoided}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			balances := map[string]Balance{aliceID: {Posted: 100, PendingDebits: 60}, bobID: {PendingCredits: 60}, worldID: {}}
			id := newTransferID()
			res, err := Apply(ApplyInput{Spec: tc.spec, TransferID: id, Now: t0, Accounts: accounts, Balances: balances, Target: tc.target})
			if err != nil {
				t.Fatal(err)
			}
			tr := res.Transfer
			if tr.ID != id || tr.Reference != tc.spec.Reference || tr.Asset != AssetUSDC || !tr.CreatedAt.Equal(t0.Truncate(time.Microsecond)) {
				t.Errorf("transfer header = %+v", tr)
			}
			if !reflect.DeepEqual(tr.Postings, tc.wantPostings) || res.State != tc.wantState {
				t.Errorf("postings %v state %+v, want %v %+v", tr.Postings, res.State, tc.wantPostings, tc.wantState)
			}
		})
	}
}

// TestApply_IsPure checks that neither an accepted nor a refused transfer touches its input.
func TestApply_IsPure(t *testing.T) {
	for _, amount := range []int64{30, 1000} { // accepted, then refused
		accounts := testAccounts()
		balances := map[string]Balance{aliceID: {Posted: 100, PendingDebits: 60}, bobID: {PendingCredits: 60}}
		hold := storedHold(60, t0.Add(time.Minute), StatusPending)
		spec := postSpec("post", hold.Transfer.ID, amount)
		copies := []any{cloneAccounts(accounts), cloneBalances(balances), *hold, spec}
		if _, err := Apply(ApplyInput{Spec: spec, TransferID: newTransferID(), Now: t0, Accounts: accounts, Balances: balances, Target: hold}); (err == nil) != (amount == 30) {
			t.Fatalf("amount %d: err = %v", amount, err)
		}
		if got := []any{accounts, balances, *hold, spec}; !reflect.DeepEqual(got, copies) {
			t.Fatalf("amount %d: input changed:\n got %+v\nwant %+v", amount, got, copies)
		}
	}
}

func cloneAccounts(m map[string]Account) map[string]Account {
	out := map[string]Account{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func cloneBalances(m map[string]Balance) map[string]Balance {
	out := map[string]Balance{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func TestIsExpired(t *testing.T) {
	hold := storedHold(1, t0, StatusPending).Transfer
	forever := storedHold(1, time.Time{}, StatusPending).Transfer
	tests := []struct {
		name     string
		transfer Transfer
		now      time.Time
		want     bool
	}{
		{"before expiry", hold, t0.Add(-time.Microsecond), false},
		{"at expiry", hold, t0, true},
		{"after expiry", hold, t0.Add(time.Hour), true},
		{"a hold without expiry never expires", forever, t0.Add(1000 * time.Hour), false},
		{"a posted transfer never expires", storedMove(1, StatusPosted).Transfer, t0, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := IsExpired(tc.transfer, tc.now); got != tc.want {
				t.Fatalf("IsExpired = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestInvolvedAccountIDs(t *testing.T) {
	hold := storedHold(5, time.Time{}, StatusPending).Transfer
	want := []string{aliceID, bobID}
	if want[0] > want[1] {
		want[0], want[1] = want[1], want[0]
	}
	if got := InvolvedAccountIDs(postedSpec("p", Posting{bobID, 1}, Posting{aliceID, -1}), nil); !reflect.DeepEqual(got, want) {
		t.Errorf("posted: %v, want %v", got, want)
	}
	if got := InvolvedAccountIDs(voidSpec("v", hold.ID), &hold); !reflect.DeepEqual(got, want) {
		t.Errorf("void: %v, want %v", got, want)
	}
	if got := InvolvedAccountIDs(voidSpec("v", hold.ID), nil); len(got) != 0 {
		t.Errorf("missing target: %v, want none", got)
	}
}
