package fake

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// ledgerReports answers the finance reads by replaying the book's transfers in sequence order
// through ledger.Effects, the rule the Postgres store uses to write its postings, so the
// balance after each transfer (the statement's running balance, a balance as of an instant)
// is derived the same way.
type ledgerReports struct{ s *Store }

var _ ports.LedgerReports = ledgerReports{}

// posting is one transfer's effect on one account, as a Postgres posting row keeps it.
type posting struct {
	seq      int64
	transfer ledger.Transfer
	amount   int64
	delta    ledger.Delta
	after    ledger.Balance
}

// replay returns every account's postings in sequence order.
func (r ledgerReports) replay() map[string][]posting {
	book := r.s.state.book
	out := map[string][]posting{}
	for i, t := range book.History() {
		var pending *ledger.Transfer
		if t.Type == ledger.TypePostPending || t.Type == ledger.TypeVoidPending {
			if p, err := book.Transfer(t.PendingID); err == nil {
				pending = &p.Transfer
			}
		}
		deltas, err := ledger.Effects(t, pending)
		if err != nil {
			continue
		}
		amounts := map[string]int64{}
		for _, p := range t.Postings {
			amounts[p.AccountID] = p.Amount
		}
		for _, d := range deltas {
			var before ledger.Balance
			if prev := out[d.AccountID]; len(prev) > 0 {
				before = prev[len(prev)-1].after
			}
			after := ledger.Balance{Posted: before.Posted + d.Posted, PendingDebits: before.PendingDebits + d.PendingDebits,
				PendingCredits: before.PendingCredits + d.PendingCredits}
			out[d.AccountID] = append(out[d.AccountID], posting{seq: int64(i + 1), transfer: t, amount: amounts[d.AccountID], delta: d, after: after})
		}
	}
	return out
}

// balanceAt is the balance after the last posting at or before (inclusive) or strictly before instant.
func balanceAt(ps []posting, instant time.Time, inclusive bool) ledger.Balance {
	var b ledger.Balance
	for _, p := range ps {
		if p.transfer.CreatedAt.Before(instant) || (inclusive && p.transfer.CreatedAt.Equal(instant)) {
			b = p.after
		}
	}
	return b
}

func inWindow(at, from, to time.Time) bool {
	return !at.Before(from) && (to.IsZero() || at.Before(to))
}

func (r ledgerReports) tenantAccounts(env core.Environment, tenantID string) []ledger.Account {
	accs := slices.DeleteFunc(r.s.state.book.Accounts(), func(a ledger.Account) bool {
		return tenantID == "" || a.TenantID != tenantID || a.Environment != env
	})
	slices.SortFunc(accs, func(a, b ledger.Account) int { return strings.Compare(a.ID, b.ID) })
	return accs
}

func (r ledgerReports) ListAccounts(_ context.Context, q ports.AccountQuery, p ports.Page) ([]ports.AccountBalance, int, error) {
	var rows []ports.AccountBalance
	for _, a := range r.tenantAccounts(q.Environment, q.TenantID) {
		if (q.Kind != "" && a.Kind != q.Kind) || (!q.CreatedAtOrBefore.IsZero() && a.CreatedAt.After(q.CreatedAtOrBefore)) {
			continue
		}
		b, _ := r.s.state.book.Balance(a.ID)
		rows = append(rows, ports.AccountBalance{Account: a, Balance: b})
	}
	out, total := page(rows, p)
	return out, total, nil
}

func (r ledgerReports) FindAccount(_ context.Context, env core.Environment, tenantID, id string) (ports.AccountBalance, error) {
	a, err := r.s.state.book.Account(id)
	if err != nil || tenantID == "" || a.TenantID != tenantID || a.Environment != env {
		return ports.AccountBalance{}, core.NotFound(core.CodeAccountNotFound, "account "+id)
	}
	b, _ := r.s.state.book.Balance(id)
	return ports.AccountBalance{Account: a, Balance: b}, nil
}

func (r ledgerReports) BalancesAsOf(_ context.Context, accountIDs []string, instant time.Time) (map[string]ledger.Balance, error) {
	postings := r.replay()
	out := make(map[string]ledger.Balance, len(accountIDs))
	for _, id := range accountIDs {
		out[id] = balanceAt(postings[id], instant, true)
	}
	return out, nil
}

func (r ledgerReports) state(id string) ledger.TransferState {
	stored, _ := r.s.state.book.Transfer(id)
	return stored.State
}

// Statement pages the account's postings in [From, To) by time, with the balances just
// before From and just before To (or now).
func (r ledgerReports) Statement(_ context.Context, q ports.StatementQuery, p ports.Page) (ports.Statement, error) {
	ps := postingsByTime(r.replay()[q.AccountID])
	var lines []ports.StatementLine
	for _, x := range ps {
		if inWindow(x.transfer.CreatedAt, q.From, q.To) {
			lines = append(lines, ports.StatementLine{Sequence: x.seq, Transfer: x.transfer, State: r.state(x.transfer.ID),
				Amount: x.amount, Delta: x.delta, After: x.after})
		}
	}
	st := ports.Statement{Opening: balanceAt(ps, q.From, false)}
	if q.To.IsZero() {
		st.Closing = balanceAt(ps, time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC), true)
	} else {
		st.Closing = balanceAt(ps, q.To, false)
	}
	st.Lines, st.Total = page(lines, p)
	return st, nil
}

// postingsByTime orders postings by time, then sequence.
func postingsByTime(ps []posting) []posting {
	out := slices.Clone(ps)
	slices.SortStableFunc(out, func(a, b posting) int {
		if c := a.transfer.CreatedAt.Compare(b.transfer.CreatedAt); c != 0 {
			return c
		}
		return cmp.Compare(a.seq, b.seq)
	})
	return out
}

// accountsOf maps every account a transfer's postings touch.
func (r ledgerReports) accountsOf(t ledger.Transfer) map[string]ledger.Account {
	out := map[string]ledger.Account{}
	for _, p := range t.Postings {
		out[p.AccountID], _ = r.s.state.book.Account(p.AccountID)
	}
	return out
}

// Entries lists, by sequence, the transfers posting on the tenant's accounts (or the one asked
// for) in [From, To).
func (r ledgerReports) Entries(_ context.Context, q ports.EntryQuery, p ports.Page) ([]ports.JournalEntry, int, error) {
	postings := r.replay()
	seen := map[string]bool{}
	var rows []ports.JournalEntry
	for _, a := range r.tenantAccounts(q.Environment, q.TenantID) {
		if q.AccountID != "" && a.ID != q.AccountID {
			continue
		}
		for _, x := range postings[a.ID] {
			if inWindow(x.transfer.CreatedAt, q.From, q.To) && !seen[x.transfer.ID] {
				seen[x.transfer.ID] = true
				rows = append(rows, ports.JournalEntry{Sequence: x.seq, Transfer: x.transfer, State: r.state(x.transfer.ID), Accounts: r.accountsOf(x.transfer)})
			}
		}
	}
	slices.SortFunc(rows, func(a, b ports.JournalEntry) int { return cmp.Compare(a.Sequence, b.Sequence) })
	out, total := page(rows, p)
	return out, total, nil
}

// TrialBalance gives the tenant's own accounts their balance (now, or as of asOf from their
// history) and every counterpart account the sum of what the tenant's transfers did to it;
// rows by asset, own first, then id.
func (r ledgerReports) TrialBalance(_ context.Context, env core.Environment, tenantID string, asOf time.Time) ([]ports.TrialBalanceRow, error) {
	postings := r.replay()
	own := map[string]bool{}
	var rows []ports.TrialBalanceRow
	for _, a := range r.tenantAccounts(env, tenantID) {
		if !asOf.IsZero() && a.CreatedAt.After(asOf) {
			continue
		}
		own[a.ID] = true
		b, _ := r.s.state.book.Balance(a.ID)
		if !asOf.IsZero() {
			b = balanceAt(postings[a.ID], asOf, true)
		}
		rows = append(rows, ports.TrialBalanceRow{Account: a, Own: true, Balance: b})
	}
	rows = append(rows, r.counterparts(postings, own, asOf)...)
	slices.SortFunc(rows, func(a, b ports.TrialBalanceRow) int {
		if c := strings.Compare(a.Account.Asset, b.Account.Asset); c != 0 {
			return c
		}
		if a.Own != b.Own {
			if a.Own {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Account.ID, b.Account.ID)
	})
	return rows, nil
}

// counterparts sums, per account outside own, the deltas of transfers touching own.
func (r ledgerReports) counterparts(postings map[string][]posting, own map[string]bool, asOf time.Time) []ports.TrialBalanceRow {
	touching := map[string]bool{}
	for id := range own {
		for _, x := range postings[id] {
			if asOf.IsZero() || !x.transfer.CreatedAt.After(asOf) {
				touching[x.transfer.ID] = true
			}
		}
	}
	sums := map[string]ledger.Balance{}
	for id, ps := range postings {
		for _, x := range ps {
			if own[id] || !touching[x.transfer.ID] {
				continue
			}
			b := sums[id]
			b.Posted, b.PendingDebits, b.PendingCredits = b.Posted+x.delta.Posted, b.PendingDebits+x.delta.PendingDebits, b.PendingCredits+x.delta.PendingCredits
			sums[id] = b
		}
	}
	var out []ports.TrialBalanceRow
	for id, b := range sums {
		a, _ := r.s.state.book.Account(id)
		out = append(out, ports.TrialBalanceRow{Account: a, Balance: b})
	}
	return out
}

// BalanceMovements lists each non-zero change to the posted balance of the tenant's accounts of
// the kinds in [From, To), by time, sequence and account.
func (r ledgerReports) BalanceMovements(_ context.Context, q ports.MovementQuery, p ports.Page) ([]ports.BalanceMovement, int, error) {
	postings := r.replay()
	type move struct {
		x       posting
		account ledger.Account
	}
	var moves []move
	for _, a := range r.tenantAccounts(q.Environment, q.TenantID) {
		if !slices.Contains(q.Kinds, a.Kind) {
			continue
		}
		for _, x := range postings[a.ID] {
			if x.delta.Posted != 0 && inWindow(x.transfer.CreatedAt, q.From, q.To) {
				moves = append(moves, move{x, a})
			}
		}
	}
	slices.SortFunc(moves, func(a, b move) int {
		if c := a.x.transfer.CreatedAt.Compare(b.x.transfer.CreatedAt); c != 0 {
			return c
		}
		if c := cmp.Compare(a.x.seq, b.x.seq); c != 0 {
			return c
		}
		return strings.Compare(a.account.ID, b.account.ID)
	})
	moves, total := page(moves, p)
	out := make([]ports.BalanceMovement, len(moves))
	for i, m := range moves {
		out[i] = ports.BalanceMovement{Sequence: m.x.seq, Transfer: m.x.transfer, Account: m.account, Amount: m.x.delta.Posted,
			Accounts: r.accountsOf(m.x.transfer)}
	}
	return out, total, nil
}

// DailyVolume sums posted money into and out of the tenant's accounts of kind per UTC day and
// asset from since on, oldest day first.
func (r ledgerReports) DailyVolume(_ context.Context, env core.Environment, tenantID, kind string, since time.Time) ([]ports.DayVolume, error) {
	postings := r.replay()
	type key struct {
		day   time.Time
		asset string
	}
	vols, transfers, ins, outs := map[key]*ports.DayVolume{}, map[key]map[string]bool{}, map[key]map[string]bool{}, map[key]map[string]bool{}
	for _, a := range r.tenantAccounts(env, tenantID) {
		if a.Kind != kind {
			continue
		}
		for _, x := range postings[a.ID] {
			at := x.transfer.CreatedAt.UTC()
			if x.delta.Posted == 0 || at.Before(since) {
				continue
			}
			k := key{time.Date(at.Year(), at.Month(), at.Day(), 0, 0, 0, 0, time.UTC), a.Asset}
			if vols[k] == nil {
				vols[k], transfers[k], ins[k], outs[k] = &ports.DayVolume{Day: k.day, Asset: k.asset}, map[string]bool{}, map[string]bool{}, map[string]bool{}
			}
			if x.delta.Posted > 0 {
				vols[k].In += x.delta.Posted
				ins[k][x.transfer.ID] = true
			} else {
				vols[k].Out -= x.delta.Posted
				outs[k][x.transfer.ID] = true
			}
			transfers[k][x.transfer.ID] = true
		}
	}
	out := make([]ports.DayVolume, 0, len(vols))
	for k, v := range vols {
		v.Transfers, v.InTransfers, v.OutTransfers = len(transfers[k]), len(ins[k]), len(outs[k])
		out = append(out, *v)
	}
	slices.SortFunc(out, func(a, b ports.DayVolume) int {
		if c := a.Day.Compare(b.Day); c != 0 {
			return c
		}
		return strings.Compare(a.Asset, b.Asset)
	})
	return out, nil
}

// SweepableShares lists the platform shares with a posted balance and no holds, in id order,
// with the sequence of the last transfer that moved each (its place in the book's history).
func (r ledgerReports) SweepableShares(_ context.Context, kinds []string, afterID string, limit int) ([]ports.ShareBalance, error) {
	postings := r.replay()
	accs := slices.DeleteFunc(r.s.state.book.Accounts(), func(a ledger.Account) bool {
		return a.TenantID != "" || a.Home() == "" || a.ID <= afterID || !slices.Contains(kinds, a.Kind)
	})
	slices.SortFunc(accs, func(a, b ledger.Account) int { return strings.Compare(a.ID, b.ID) })
	var out []ports.ShareBalance
	for _, a := range accs {
		b, _ := r.s.state.book.Balance(a.ID)
		ps := postings[a.ID]
		if b.Posted == 0 || b.PendingDebits != 0 || b.PendingCredits != 0 || len(ps) == 0 || len(out) == limit {
			continue
		}
		out = append(out, ports.ShareBalance{AccountBalance: ports.AccountBalance{Account: a, Balance: b}, LastSequence: ps[len(ps)-1].seq})
	}
	return out, nil
}
