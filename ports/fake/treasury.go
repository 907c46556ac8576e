package fake

import (
	"context"
	"slices"
	"sort"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/ports"
)

// treasuryTables hold accounts with their buckets as created (a bucket's Address and
// WalletStatus are what the caller set: the fake does not join the wallets table), rules and
// sweeps.
type treasuryTables struct {
	accounts table[treasury.Account]
	rules    table[treasury.Rule]
	sweeps   table[treasury.Sweep]
}

func newTreasuryTables() treasuryTables {
	return treasuryTables{accounts: newTable[treasury.Account](), rules: newTable[treasury.Rule](), sweeps: newTable[treasury.Sweep]()}
}

func (t treasuryTables) clone() treasuryTables {
	return treasuryTables{accounts: t.accounts.clone(), rules: t.rules.clone(), sweeps: t.sweeps.clone()}
}

type treasuryRepo struct{ s *Store }

var _ ports.TreasuryRepo = treasuryRepo{}

func (r treasuryRepo) t() *treasuryTables { return &r.s.state.treasury }

var (
	errTreasuryAccountNotFound = core.NotFound(treasury.CodeAccountNotFound, "treasury account")
	errTreasuryRuleNotFound    = core.NotFound(treasury.CodeRuleNotFound, "treasury rule")
)

// withBuckets returns a copy whose buckets are in position order, as the store reads them.
func withBuckets(a treasury.Account) treasury.Account {
	a.Buckets = append([]treasury.Bucket(nil), a.Buckets...)
	sort.SliceStable(a.Buckets, func(i, j int) bool { return a.Buckets[i].Position < a.Buckets[j].Position })
	return a
}

func (r treasuryRepo) CreateAccount(_ context.Context, a treasury.Account) error {
	return r.t().accounts.insert(a.ID, withBuckets(a))
}

func (r treasuryRepo) FindAccount(_ context.Context, tenantID string, env core.Environment, id string) (treasury.Account, error) {
	a, ok := r.t().accounts.rows[id]
	if !ok || a.TenantID != tenantID || a.Environment != env {
		return treasury.Account{}, errTreasuryAccountNotFound
	}
	return withBuckets(a), nil
}

func (r treasuryRepo) FindAccountIDByWallet(_ context.Context, tenantID string, env core.Environment, walletID string) (string, bool, error) {
	for _, a := range r.t().accounts.filter(func(a treasury.Account) bool { return a.TenantID == tenantID && a.Environment == env }, false) {
		for _, b := range a.Buckets {
			if b.WalletID == walletID {
				return a.ID, true, nil
			}
		}
	}
	return "", false, nil
}

func (r treasuryRepo) LockAccount(_ context.Context, tenantID, id string) (treasury.Account, error) {
	a, ok := r.t().accounts.rows[id]
	if !ok || a.TenantID != tenantID {
		return treasury.Account{}, errTreasuryAccountNotFound
	}
	return withBuckets(a), nil
}

// ListAccounts lists by id, oldest first, as the Postgres store does.
func (r treasuryRepo) ListAccounts(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]treasury.Account, int, error) {
	rows := r.t().accounts.filter(func(a treasury.Account) bool { return a.TenantID == tenantID && a.Environment == env }, false)
	out, total := page(rows, p)
	return out, total, nil
}

func (r treasuryRepo) ListYieldAccounts(_ context.Context, env core.Environment, afterID string, limit int) ([]treasury.Account, error) {
	rows := r.t().accounts.filter(func(a treasury.Account) bool {
		if a.Environment != env || a.ID <= afterID {
			return false
		}
		for _, b := range a.Buckets {
			if b.ApyBps > 0 {
				return true
			}
		}
		return false
	}, false)
	sort.SliceStable(rows, func(i, j int) bool { return rows[i].ID < rows[j].ID })
	out, _ := page(rows, ports.Page{Take: limit})
	return out, nil
}

func (r treasuryRepo) SetClockOffset(_ context.Context, tenantID, accountID string, days int) error {
	a, ok := r.t().accounts.rows[accountID]
	if !ok || a.TenantID != tenantID {
		return nil // the Postgres update touches no row either
	}
	a.ClockOffsetDays = days
	r.t().accounts.rows[accountID] = a
	return nil
}

func (r treasuryRepo) CreateRule(_ context.Context, rule treasury.Rule) error {
	return r.t().rules.insert(rule.ID, rule)
}

func (r treasuryRepo) FindRule(_ context.Context, tenantID string, env core.Environment, id string) (treasury.Rule, error) {
	rule, ok := r.t().rules.rows[id]
	if !ok || rule.TenantID != tenantID || rule.Environment != env || rule.DeletedAt != nil {
		return treasury.Rule{}, errTreasuryRuleNotFound
	}
	return rule, nil
}

func (r treasuryRepo) LockRule(_ context.Context, tenantID, id string) (treasury.Rule, error) {
	rule, ok := r.t().rules.rows[id]
	if !ok || rule.TenantID != tenantID {
		return treasury.Rule{}, errTreasuryRuleNotFound
	}
	return rule, nil
}

func (r treasuryRepo) UpdateRule(_ context.Context, rule treasury.Rule) error {
	return r.t().rules.update(rule.ID, rule)
}

func (r treasuryRepo) ListRules(_ context.Context, tenantID, accountID string, p ports.Page) ([]treasury.Rule, int, error) {
	rows := r.t().rules.filter(func(x treasury.Rule) bool {
		return x.TenantID == tenantID && x.AccountID == accountID && x.DeletedAt == nil
	}, false)
	out, total := page(rows, p)
	return out, total, nil
}

func (r treasuryRepo) CountRules(_ context.Context, tenantID, accountID string) (int, error) {
	return len(r.t().rules.filter(func(x treasury.Rule) bool {
		return x.TenantID == tenantID && x.AccountID == accountID && x.DeletedAt == nil
	}, false)), nil
}

// ListDueRules applies each account's clock offset to now, as the Postgres query does.
func (r treasuryRepo) ListDueRules(_ context.Context, env core.Environment, accountID string, now time.Time, limit int) ([]treasury.Rule, error) {
	dueAt := func(x treasury.Rule) time.Time {
		start := x.CreatedAt
		if x.LastEvaluatedAt != nil {
			start = *x.LastEvaluatedAt
		}
		offset := time.Duration(r.t().accounts.rows[x.AccountID].ClockOffsetDays) * 24 * time.Hour
		return start.Add(time.Duration(x.IntervalSeconds)*time.Second - offset)
	}
	rows := r.t().rules.filter(func(x treasury.Rule) bool {
		return x.Environment == env && x.Enabled && x.DeletedAt == nil && (accountID == "" || x.AccountID == accountID) && !dueAt(x).After(now)
	}, false)
	sort.SliceStable(rows, func(i, j int) bool {
		if a, b := dueAt(rows[i]), dueAt(rows[j]); !a.Equal(b) {
			return a.Before(b)
		}
		return rows[i].ID < rows[j].ID
	})
	out, _ := page(rows, ports.Page{Take: limit})
	return out, nil
}

func (r treasuryRepo) CreateSweep(_ context.Context, sw treasury.Sweep) error {
	return r.t().sweeps.insert(sw.ID, sw)
}

func (r treasuryRepo) ListSweeps(_ context.Context, tenantID, accountID string, p ports.Page) ([]treasury.Sweep, int, error) {
	rows := r.t().sweeps.filter(func(sw treasury.Sweep) bool { return sw.TenantID == tenantID && sw.AccountID == accountID }, true)
	out, total := page(rows, p)
	return out, total, nil
}

func (r treasuryRepo) LatestRuleSweep(_ context.Context, tenantID, ruleID string) (treasury.Sweep, bool, error) {
	rows := r.t().sweeps.filter(func(sw treasury.Sweep) bool { return sw.TenantID == tenantID && sw.RuleID == ruleID }, true)
	if len(rows) == 0 {
		return treasury.Sweep{}, false, nil
	}
	return rows[0], true, nil
}

func (r treasuryRepo) PendingSweepOutflows(_ context.Context, tenantID, accountID string, walletIDs []string) (map[string]int64, error) {
	out := map[string]int64{}
	for _, sw := range r.t().sweeps.filter(func(sw treasury.Sweep) bool { return sw.TenantID == tenantID && sw.AccountID == accountID }, false) {
		pay, ok := r.s.state.payments.rows[sw.PaymentID]
		if ok && slices.Contains(walletIDs, pay.SourceWalletID) && treasury.PaymentPending(string(pay.Status)) {
			out[sw.SourceBucketID] += sw.AmountBaseUnits
		}
	}
	return out, nil
}

func (r treasuryRepo) FindSweepByPayment(_ context.Context, tenantID, paymentID string) (treasury.Sweep, bool, error) {
	rows := r.t().sweeps.filter(func(sw treasury.Sweep) bool { return sw.TenantID == tenantID && sw.PaymentID == paymentID }, false)
	if len(rows) == 0 {
		return treasury.Sweep{}, false, nil
	}
	return rows[0], true, nil
}

// paymentRepo stores Safe payments.
type paymentRepo struct{ s *Store }

var _ ports.PaymentRepo = paymentRepo{}

var errPaymentNotFound = core.NotFound(safepay.CodePaymentNotFound, "payment")

func (r paymentRepo) t() *table[safepay.Payment] { return &r.s.state.payments }

func (r paymentRepo) CreatePayment(_ context.Context, p safepay.Payment) error {
	return r.t().insert(p.ID, p)
}

func (r paymentRepo) FindPayment(_ context.Context, tenantID string, env core.Environment, id string) (safepay.Payment, error) {
	p, ok := r.t().rows[id]
	if !ok || p.TenantID != tenantID || p.Environment != env {
		return safepay.Payment{}, errPaymentNotFound
	}
	return p, nil
}

// LockPayment finds a payment of the tenant; an empty tenant (a job from before jobs carried
// it) matches any, as the Postgres store resolves it.
func (r paymentRepo) LockPayment(_ context.Context, tenantID, id string) (safepay.Payment, error) {
	p, ok := r.t().rows[id]
	if !ok || (tenantID != "" && p.TenantID != tenantID) {
		return safepay.Payment{}, errPaymentNotFound
	}
	return p, nil
}

func (r paymentRepo) ListPayments(_ context.Context, tenantID string, env core.Environment, pg ports.Page) ([]safepay.Payment, int, error) {
	rows := r.t().filter(func(p safepay.Payment) bool { return p.TenantID == tenantID && p.Environment == env }, true)
	out, total := page(rows, pg)
	return out, total, nil
}

func (r paymentRepo) UpdatePayment(_ context.Context, p safepay.Payment) error {
	return r.t().update(p.ID, p)
}

// holdsNonce: a live or completed payment keeps its Safe nonce; cancelled and failed gave it up.
func holdsNonce(s safepay.Status) bool {
	return s != safepay.StatusCancelled && s != safepay.StatusFailed
}

func (r paymentRepo) HighestNonceInUse(_ context.Context, tenantID, walletID string) (uint64, bool, error) {
	var highest uint64
	found := false
	for _, p := range r.t().filter(func(p safepay.Payment) bool {
		return p.TenantID == tenantID && p.SourceWalletID == walletID && holdsNonce(p.Status)
	}, false) {
		if !found || p.SafeNonce > highest {
			highest, found = p.SafeNonce, true
		}
	}
	return highest, found, nil
}

func (r paymentRepo) ListQueuedPayments(_ context.Context, tenantID, walletID string, afterNonce uint64, limit int) ([]safepay.Payment, error) {
	rows := r.t().filter(func(p safepay.Payment) bool {
		return p.TenantID == tenantID && p.SourceWalletID == walletID && p.SafeNonce > afterNonce && !p.Status.Terminal()
	}, false)
	sort.SliceStable(rows, func(i, j int) bool {
		if rows[i].SafeNonce != rows[j].SafeNonce {
			return rows[i].SafeNonce < rows[j].SafeNonce
		}
		return rows[i].ID < rows[j].ID
	})
	out, _ := page(rows, ports.Page{Take: limit})
	return out, nil
}

func (r paymentRepo) ListStalePayments(_ context.Context, status safepay.Status, updatedBefore time.Time, limit int) ([]safepay.Payment, error) {
	rows := r.t().filter(func(p safepay.Payment) bool { return p.Status == status && p.UpdatedAt.Before(updatedBefore) }, false)
	sortByTime(rows, func(p safepay.Payment) time.Time { return p.UpdatedAt })
	out, _ := page(rows, ports.Page{Take: limit})
	return out, nil
}
