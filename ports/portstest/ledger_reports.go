package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// LedgerReportsRepo is the contract of ports.LedgerReports over a small history (a tenant's
// available account funded from the world, then part moved to its wallet's on-chain account):
// accounts list by id and are the tenant's (ACCOUNT_NOT_FOUND for others and for platform
// accounts), balances as of an instant follow the history, a statement's opening, lines and
// closing agree, the journal lists by sequence, the trial balance puts own rows first and sums
// to zero, and movements and daily volume count posted money only.
func LedgerReportsRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{{"the finance reads agree with a small history", ledgerReportsHistory},
		{"the sweep lists a platform share with its balance and last transfer, of the kinds asked", sweepableShares}})
}

// sweepableShares: a tenant's share of a world account, moved once, is listed with its posted
// balance and a last sequence, under its kind only; the tenant's own account never is.
func sweepableShares(t *testing.T, s ports.Store) {
	tenant := newTenant(t, s).ID
	var share, avail ledger.Account
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		accs, err := l.OpenAccounts(ctx, ledgerNow(), ledger.Share(ledger.World(core.EnvTest, ledger.AssetUSDC, "sweep"), tenant),
			ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, tenant))
		if err != nil {
			return err
		}
		share, avail = accs[0], accs[1]
		_, _, err = l.Post(ctx, ledgerNow(), move("sweep:fund:"+tenant, share.ID, avail.ID, 500))
		return err
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		listed := func(kind string) (ports.ShareBalance, bool) {
			rows, err := tx.LedgerReports().SweepableShares(ctx, []string{kind}, "", 10_000)
			noErr(t, "SweepableShares", err)
			for _, r := range rows {
				if r.Account.ID == avail.ID {
					t.Errorf("a tenant's own account was listed as a share")
				}
				if r.Account.ID == share.ID {
					return r, true
				}
			}
			return ports.ShareBalance{}, false
		}
		got, ok := listed(ledger.KindWorld)
		if !ok || got.Balance.Posted != -500 || got.LastSequence <= 0 || got.Account.Home() != tenant {
			t.Errorf("share listed %v: %+v", ok, got)
		}
		if _, ok := listed(ledger.KindPlatformFees); ok {
			t.Errorf("a world share was listed among the fee shares")
		}
		return nil
	})
}

// reportsFixture is the history the reads are checked against.
type reportsFixture struct {
	tenant                 string
	avail, onchain, world  ledger.Account
	fundedAt, movedAt      time.Time
	now                    map[string]ledger.Balance
	fundID, moveID         string
	fundAmount, moveAmount int64
}

func newReportsFixture(t *testing.T, s ports.Store) reportsFixture {
	t.Helper()
	f := reportsFixture{tenant: newTenant(t, s).ID, fundAmount: 1000, moveAmount: 300}
	f.fundedAt, f.movedAt = ledgerNow().Add(-10*time.Minute), ledgerNow().Add(-5*time.Minute)
	inTx(t, s, func(ctx context.Context, l ports.LedgerRepo) error {
		accs, err := l.OpenAccounts(ctx, f.fundedAt.Add(-time.Minute), ledger.TenantAvailable(core.EnvTest, ledger.AssetUSDC, f.tenant),
			ledger.WalletOnchain(core.EnvTest, ledger.AssetUSDC, f.tenant, core.NewID(core.PrefixWallet)),
			ledger.World(core.EnvTest, ledger.AssetUSDC, "reports-"+f.tenant))
		if err != nil {
			return err
		}
		f.avail, f.onchain, f.world = accs[0], accs[1], accs[2]
		fund, _, err := l.Post(ctx, f.fundedAt, move("reports:fund:"+f.tenant, f.world.ID, f.avail.ID, f.fundAmount))
		if err != nil {
			return err
		}
		moved, _, err := l.Post(ctx, f.movedAt, move("reports:move:"+f.tenant, f.avail.ID, f.onchain.ID, f.moveAmount))
		f.fundID, f.moveID = fund.ID, moved.ID
		return err
	})
	f.now = balances(t, s, f.avail.ID, f.onchain.ID, f.world.ID)
	return f
}

func ledgerReportsHistory(t *testing.T, s ports.Store) {
	f := newReportsFixture(t, s)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		r := tx.LedgerReports()
		reportsAccounts(ctx, t, r, f)
		reportsAsOf(ctx, t, r, f)
		reportsJournal(ctx, t, r, f)
		reportsTrialBalance(ctx, t, r, f)
		reportsMovements(ctx, t, r, f)
		return nil
	})
}

func reportsAccounts(ctx context.Context, t *testing.T, r ports.LedgerReports, f reportsFixture) {
	list, total, err := r.ListAccounts(ctx, ports.AccountQuery{Environment: core.EnvTest, TenantID: f.tenant}, ports.Page{Take: 10})
	noErr(t, "ListAccounts", err)
	wantTotal(t, "ListAccounts", total, 2)
	want := []string{f.avail.ID, f.onchain.ID}
	if want[0] > want[1] {
		want[0], want[1] = want[1], want[0]
	}
	wantIDs(t, "ListAccounts", ids(list, func(a ports.AccountBalance) string { return a.Account.ID }), want)
	list, _, _ = r.ListAccounts(ctx, ports.AccountQuery{Environment: core.EnvTest, TenantID: f.tenant, Kind: ledger.KindTenantAvailable}, ports.Page{Take: 10})
	if len(list) != 1 || list[0].Balance != f.now[f.avail.ID] {
		t.Errorf("ListAccounts of a kind = %+v, want the available account at %+v", list, f.now[f.avail.ID])
	}
	_, err = r.FindAccount(ctx, core.EnvTest, core.NewID(core.PrefixTenant), f.avail.ID)
	wantCode(t, err, core.CodeAccountNotFound)
	_, err = r.FindAccount(ctx, core.EnvTest, "", f.world.ID)
	wantCode(t, err, core.CodeAccountNotFound)
}

func reportsAsOf(ctx context.Context, t *testing.T, r ports.LedgerReports, f reportsFixture) {
	ids := []string{f.avail.ID, f.onchain.ID}
	before, err := r.BalancesAsOf(ctx, ids, f.fundedAt.Add(-time.Second))
	noErr(t, "BalancesAsOf", err)
	afterFund, _ := r.BalancesAsOf(ctx, ids, f.fundedAt)
	now, _ := r.BalancesAsOf(ctx, ids, f.movedAt)
	if before[f.avail.ID] != (ledger.Balance{}) || afterFund[f.avail.ID].Posted == 0 || afterFund[f.onchain.ID] != (ledger.Balance{}) {
		t.Errorf("BalancesAsOf before = %+v, after the funding = %+v", before, afterFund)
	}
	if now[f.avail.ID] != f.now[f.avail.ID] || now[f.onchain.ID] != f.now[f.onchain.ID] {
		t.Errorf("BalancesAsOf the last transfer = %+v, want the current %+v", now, f.now)
	}
	st, err := r.Statement(ctx, ports.StatementQuery{AccountID: f.avail.ID, From: f.fundedAt.Add(time.Second)}, ports.Page{Take: 10})
	noErr(t, "Statement", err)
	if st.Opening != afterFund[f.avail.ID] || st.Closing != f.now[f.avail.ID] || st.Total != 1 || len(st.Lines) != 1 ||
		st.Lines[0].Transfer.ID != f.moveID || st.Lines[0].After != f.now[f.avail.ID] || st.Lines[0].Delta.Posted != st.Closing.Posted-st.Opening.Posted {
		t.Errorf("Statement = %+v", st)
	}
}

func reportsJournal(ctx context.Context, t *testing.T, r ports.LedgerReports, f reportsFixture) {
	entries, total, err := r.Entries(ctx, ports.EntryQuery{Environment: core.EnvTest, TenantID: f.tenant}, ports.Page{Take: 10})
	noErr(t, "Entries", err)
	wantTotal(t, "Entries", total, 2)
	wantIDs(t, "Entries", ids(entries, func(e ports.JournalEntry) string { return e.Transfer.ID }), []string{f.fundID, f.moveID})
	if len(entries) == 2 && (entries[0].Sequence >= entries[1].Sequence || entries[0].Accounts[f.world.ID].ID != f.world.ID) {
		t.Errorf("Entries = %+v", entries)
	}
	one, _, _ := r.Entries(ctx, ports.EntryQuery{Environment: core.EnvTest, TenantID: f.tenant, AccountID: f.onchain.ID}, ports.Page{Take: 10})
	wantIDs(t, "Entries of one account", ids(one, func(e ports.JournalEntry) string { return e.Transfer.ID }), []string{f.moveID})
}

func reportsTrialBalance(ctx context.Context, t *testing.T, r ports.LedgerReports, f reportsFixture) {
	for _, asOf := range []time.Time{{}, f.movedAt} {
		rows, err := r.TrialBalance(ctx, core.EnvTest, f.tenant, asOf)
		noErr(t, "TrialBalance", err)
		var sum int64
		byID := map[string]ports.TrialBalanceRow{}
		for i, row := range rows {
			sum += row.Balance.Posted
			byID[row.Account.ID] = row
			if i > 0 && row.Own && !rows[i-1].Own {
				t.Errorf("TrialBalance lists an own row after a counterpart: %+v", rows)
			}
		}
		if len(rows) != 3 || sum != 0 || byID[f.avail.ID].Balance != f.now[f.avail.ID] || byID[f.world.ID].Own ||
			byID[f.world.ID].Balance.Posted != f.now[f.world.ID].Posted {
			t.Errorf("TrialBalance(asOf %v) = %+v, want 3 rows summing to 0", asOf, rows)
		}
	}
}

func reportsMovements(ctx context.Context, t *testing.T, r ports.LedgerReports, f reportsFixture) {
	q := ports.MovementQuery{Environment: core.EnvTest, TenantID: f.tenant, Kinds: []string{ledger.KindTenantAvailable}}
	moves, total, err := r.BalanceMovements(ctx, q, ports.Page{Take: 10})
	noErr(t, "BalanceMovements", err)
	wantTotal(t, "BalanceMovements", total, 2)
	wantIDs(t, "BalanceMovements", ids(moves, func(m ports.BalanceMovement) string { return m.Transfer.ID }), []string{f.fundID, f.moveID})
	if len(moves) == 2 && moves[0].Amount+moves[1].Amount != f.now[f.avail.ID].Posted {
		t.Errorf("movements %d and %d do not add up to the balance %d", moves[0].Amount, moves[1].Amount, f.now[f.avail.ID].Posted)
	}
	days, err := r.DailyVolume(ctx, core.EnvTest, f.tenant, ledger.KindTenantAvailable, f.fundedAt.Add(-time.Hour))
	noErr(t, "DailyVolume", err)
	var in, out int64
	var transfers, ins, outs int
	for _, d := range days {
		in, out, transfers, ins, outs = in+d.In, out+d.Out, transfers+d.Transfers, ins+d.InTransfers, outs+d.OutTransfers
	}
	// one transfer brought money in (the fund), one took it out (the move): each side counts its own
	if in-out != f.now[f.avail.ID].Posted || in+out != f.fundAmount+f.moveAmount || transfers != 2 || ins != 1 || outs != 1 {
		t.Errorf("DailyVolume = %+v", days)
	}
}
