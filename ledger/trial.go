package ledger

import (
	"sort"

	"github.com/corridorhq/corridor/core"
)

// TrialLine is the trial balance of one environment and asset. Posted balances are split into
// the sum of positive balances (PostedCredits) and the magnitude of the sum of negative ones
// (PostedDebits), as finance reads them in two columns; the pending columns are the sums of the
// accounts' pending totals.
type TrialLine struct {
	Environment    core.Environment
	Asset          string
	Accounts       int
	PostedCredits  int64
	PostedDebits   int64
	PendingCredits int64
	PendingDebits  int64
}

// Balanced reports the ledger's two zero-sum invariants for this asset: posted balances sum to
// zero, and every pending debit has its pending credit.
func (l TrialLine) Balanced() bool {
	return l.PostedCredits == l.PostedDebits && l.PendingCredits == l.PendingDebits
}

// TrialBalance sums the balances of the given accounts per environment and asset, sorted by
// environment then asset. An account without a balance counts as zero (an account opened
// without any transfer yet). Every sum is overflow-checked: AMOUNT_OVERFLOW means the totals
// do not fit int64 and the report cannot be trusted.
func TrialBalance(accounts []Account, balances map[string]Balance) ([]TrialLine, error) {
	type key struct {
		env   core.Environment
		asset string
	}
	lines := map[key]*TrialLine{}
	for _, a := range accounts {
		k := key{a.Environment, a.Asset}
		if lines[k] == nil {
			lines[k] = &TrialLine{Environment: a.Environment, Asset: a.Asset}
		}
		if err := lines[k].add(balances[a.ID]); err != nil {
			return nil, err
		}
	}
	out := make([]TrialLine, 0, len(lines))
	for _, l := range lines {
		out = append(out, *l)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Environment != out[j].Environment {
			return out[i].Environment < out[j].Environment
		}
		return out[i].Asset < out[j].Asset
	})
	return out, nil
}

func (l *TrialLine) add(b Balance) error {
	if err := b.Validate(); err != nil {
		return err
	}
	var err error
	l.Accounts++
	if b.Posted >= 0 {
		l.PostedCredits, err = core.AddInt64(l.PostedCredits, b.Posted)
	} else {
		l.PostedDebits, err = core.AddInt64(l.PostedDebits, -b.Posted) // Valid: Posted > MinInt64.
	}
	if err != nil {
		return err
	}
	if l.PendingCredits, err = core.AddInt64(l.PendingCredits, b.PendingCredits); err != nil {
		return err
	}
	l.PendingDebits, err = core.AddInt64(l.PendingDebits, b.PendingDebits)
	return err
}
