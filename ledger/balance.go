package ledger

import (
	"math"

	"github.com/corridorhq/corridor/core"
)

// Balance is an account's running totals, kept in the same transaction as the postings that
// change it. PendingDebits and PendingCredits are magnitudes (never negative) of the open holds
// that will debit or credit the account.
//
// Every value of a valid balance, and its Available, lies in [-MaxInt64, MaxInt64], so each can
// be negated without overflow; Apply refuses a transfer that would leave that range.
type Balance struct {
	Posted         int64
	PendingDebits  int64
	PendingCredits int64
}

// Available is what the account may spend now: posted money minus what open holds reserve.
// Pending credits do not count until they are posted, so money on its way in cannot be spent
// twice if the hold is voided. It panics on a balance that fails Validate, because arithmetic
// on an unchecked row is a programming error: Apply and Book validate every balance they read.
func (b Balance) Available() int64 {
	available, err := core.SubInt64(b.Posted, b.PendingDebits)
	if err != nil || available == math.MinInt64 {
		panic("ledger: Available of an invalid balance; Validate balances after reading them")
	}
	return available
}

// Validate checks a balance read back from storage before any arithmetic relies on it.
func (b Balance) Validate() error {
	if b.Posted == math.MinInt64 || b.PendingDebits < 0 || b.PendingCredits < 0 {
		return core.E(core.CodeInternal, "ledger: balance out of range: %+v", b)
	}
	available, err := core.SubInt64(b.Posted, b.PendingDebits)
	if err != nil || available == math.MinInt64 {
		return core.E(core.CodeAmountOverflow, "ledger: available balance overflows: %+v", b)
	}
	return nil
}

// Delta is the change one transfer makes to one account's balance. Apply, Rebuild and an
// account statement all derive it from Effects, so the three can never disagree.
type Delta struct {
	AccountID      string
	Posted         int64
	PendingDebits  int64
	PendingCredits int64
}

// add returns b changed by d, refusing overflow and refusing pending totals below zero (which
// would mean a hold was released twice: a store bug or a corrupt row, never a user error).
func (b Balance) add(d Delta) (Balance, error) {
	posted, err := core.AddInt64(b.Posted, d.Posted)
	if err != nil {
		return Balance{}, err
	}
	pendingDebits, err := core.AddInt64(b.PendingDebits, d.PendingDebits)
	if err != nil {
		return Balance{}, err
	}
	pendingCredits, err := core.AddInt64(b.PendingCredits, d.PendingCredits)
	if err != nil {
		return Balance{}, err
	}
	if posted == math.MinInt64 {
		return Balance{}, core.E(core.CodeAmountOverflow, "ledger: posted balance of %s overflows", d.AccountID)
	}
	out := Balance{Posted: posted, PendingDebits: pendingDebits, PendingCredits: pendingCredits}
	if out.PendingDebits < 0 || out.PendingCredits < 0 {
		return Balance{}, core.E(core.CodeInternal,
			"ledger: account %s would have negative pending totals %+v; its balance row is inconsistent with its holds",
			d.AccountID, out)
	}
	if err := out.Validate(); err != nil {
		return Balance{}, err
	}
	return out, nil
}
