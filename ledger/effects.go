package ledger

import (
	"sort"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Effects returns the balance change a recorded transfer makes to each of its accounts, in
// account-id order. A POST_PENDING needs its hold (pending) to know how much reservation it
// releases; every other type passes nil. It is the one definition of what a transfer does to a
// balance, shared by Apply, Rebuild and account statements:
//
//   - POSTED, REVERSAL: Posted += amount.
//   - PENDING: a debit leg adds |amount| to PendingDebits, a credit leg adds it to PendingCredits.
//   - POST_PENDING: the hold's whole reservation is released and the posted legs move Posted.
//   - VOID_PENDING: the reservation of its legs (the hold's legs) is released.
func Effects(t Transfer, pending *Transfer) ([]Delta, error) {
	var holdLegs map[string]int64
	if t.Type == TypePostPending {
		if pending == nil || pending.ID != t.PendingID || pending.Type != TypePending {
			return nil, core.E(core.CodeInternal, "ledger: effects of %s need its hold %s", t.ID, t.PendingID)
		}
		holdLegs = make(map[string]int64, len(pending.Postings))
		for _, p := range pending.Postings {
			holdLegs[p.AccountID] = p.Amount
		}
		if len(holdLegs) != len(t.Postings) {
			return nil, core.E(core.CodeInternal, "ledger: %s does not post the legs of hold %s", t.ID, pending.ID)
		}
	}
	deltas := make([]Delta, 0, len(t.Postings))
	for _, p := range sortedPostings(t.Postings) {
		d := Delta{AccountID: p.AccountID}
		switch t.Type {
		case TypePosted, TypeReversal:
			d.Posted = p.Amount
		case TypePending:
			d = reserve(d, p.Amount)
		case TypeVoidPending:
			d = release(d, p.Amount)
		case TypePostPending:
			held, ok := holdLegs[p.AccountID]
			if !ok || (held < 0) != (p.Amount < 0) {
				return nil, core.E(core.CodeInternal, "ledger: %s posts leg %s that hold %s does not hold", t.ID, p.AccountID, pending.ID)
			}
			d = release(d, held)
			d.Posted = p.Amount
		default:
			return nil, core.E(core.CodeInternal, "ledger: transfer %s has unknown type %q", t.ID, t.Type)
		}
		deltas = append(deltas, d)
	}
	return deltas, nil
}

// reserve is a hold leg taking effect. Amounts exclude math.MinInt64, so negation is safe.
func reserve(d Delta, amount int64) Delta {
	if amount < 0 {
		d.PendingDebits = -amount
	} else {
		d.PendingCredits = amount
	}
	return d
}

// release is a hold leg ending, by post or by void.
func release(d Delta, amount int64) Delta {
	if amount < 0 {
		d.PendingDebits = amount
	} else {
		d.PendingCredits = -amount
	}
	return d
}

// Rebuilt is the ledger recomputed from its history alone.
type Rebuilt struct {
	Balances map[string]Balance
	States   map[string]TransferState
}

// Rebuild recomputes every balance and every transfer state from a transfer history in
// sequence order. Comparing it with the stored balance rows and states checks them (what
// `corridor ledger verify` does); running it on the transfers up to an instant (AsOf) gives
// the balances as of that instant. It applies no NonNegative rule, since it replays what was
// accepted, but it refuses a history that is not self-consistent: a transfer recorded twice,
// a hold resolved twice or resolved before it exists, a reversal of something not posted.
func Rebuild(history []Transfer) (Rebuilt, error) {
	r := Rebuilt{Balances: map[string]Balance{}, States: map[string]TransferState{}}
	byID := make(map[string]*Transfer, len(history))
	for i := range history {
		t := &history[i]
		if _, dup := byID[t.ID]; dup {
			return Rebuilt{}, core.E(core.CodeInternal, "ledger: transfer %s appears twice in the history", t.ID)
		}
		target, err := rebuildTarget(r, byID, *t)
		if err != nil {
			return Rebuilt{}, err
		}
		deltas, err := Effects(*t, target)
		if err != nil {
			return Rebuilt{}, err
		}
		for _, d := range deltas {
			next, err := r.Balances[d.AccountID].add(d)
			if err != nil {
				return Rebuilt{}, err
			}
			r.Balances[d.AccountID] = next
		}
		byID[t.ID] = t
		r.States[t.ID] = initialState(t.Type)
		if t.Type.resolvesTarget() {
			r.States[target.ID] = TransferState{Status: resolvedStatus(t.Type), ResolvedByID: t.ID}
		}
	}
	return r, nil
}

// rebuildTarget finds the transfer a resolving transfer acts on and checks, by the same rule
// Apply used, that its state allowed the action. Apply decided at the transfer's CreatedAt,
// so expiry is rechecked exactly: a hold posted at or after its expiry is an inconsistency.
func rebuildTarget(r Rebuilt, byID map[string]*Transfer, t Transfer) (*Transfer, error) {
	if !t.Type.resolvesTarget() {
		return nil, nil
	}
	target, ok := byID[t.TargetID()]
	if !ok {
		return nil, core.E(core.CodeTransferNotFound, "ledger: %s acts on %s, which is not earlier in the history", t.ID, t.TargetID())
	}
	spec := t.Spec()
	stored := &StoredTransfer{Transfer: *target, State: r.States[target.ID]}
	if _, err := checkTarget(spec, stored, t.CreatedAt); err != nil {
		return nil, core.E(core.CodeInternal, "ledger: history of %s is inconsistent: %v", t.ID, err)
	}
	if want := derivePostings(spec, *target); !equalPostings(want, sortedPostings(t.Postings)) {
		return nil, core.E(core.CodeInternal, "ledger: postings of %s do not follow from %s", t.ID, target.ID)
	}
	return target, nil
}

// AsOf keeps, in order, the transfers of a sequence-ordered history created at or before
// instant, for Rebuild to compute balances as of that instant. A transfer is never created
// before the hold it posts (the store reads the hold before deciding), so the result is a
// self-consistent history whenever the store's clock does not run backwards.
func AsOf(history []Transfer, instant time.Time) []Transfer {
	out := make([]Transfer, 0, len(history))
	for _, t := range history {
		if !t.CreatedAt.After(instant) {
			out = append(out, t)
		}
	}
	return out
}

// SortedAccountIDs returns the keys of a balance map in order, for deterministic reports.
func SortedAccountIDs(balances map[string]Balance) []string {
	ids := make([]string, 0, len(balances))
	for id := range balances {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}
