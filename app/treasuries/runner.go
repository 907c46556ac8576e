package treasuries

import (
	"context"
	"errors"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/treasury"
)

// Skip reasons the runner records on a rule besides treasury.SkipUnreadable.
const (
	// SkipPreviousPending: the rule's previous sweep still waits for signatures or execution,
	// and a rule never stacks a second one.
	SkipPreviousPending = "PREVIOUS_SWEEP_PENDING"
	// SkipNotProposable: the payment could not be proposed (a bucket Safe not yet deployed, a
	// full queue, a policy denial); the reason carries the code.
	SkipNotProposable = "PAYMENT_NOT_PROPOSABLE"
)

// RunReport counts what one runner pass did.
type RunReport struct {
	Evaluated, Fired, Skipped int
}

// RunRules evaluates the enabled rules of env whose interval has passed (of one account when
// accountID is set), longest overdue first, at most runnerBatch per pass. A rule that cannot
// be evaluated is logged and left for the next pass.
func (s *Service) RunRules(ctx context.Context, env core.Environment, accountID string) (RunReport, error) {
	var rules []treasury.Rule
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		rules, err = tx.Treasury().ListDueRules(ctx, env, accountID, s.clock.Now(), runnerBatch)
		return err
	})
	if err != nil {
		return RunReport{}, err
	}
	var report RunReport
	for _, r := range rules {
		outcome, err := s.runRule(ctx, r)
		if err != nil {
			s.log.Warn("treasury: rule run failed", "ruleId", r.ID, "error", err.Error())
			continue
		}
		switch outcome {
		case outcomeFired:
			report.Evaluated++
			report.Fired++
		case outcomeSkipped:
			report.Evaluated++
			report.Skipped++
		case outcomeQuiet:
			report.Evaluated++
		}
	}
	return report, nil
}

type outcome int

const (
	outcomeNotDue outcome = iota
	outcomeQuiet
	outcomeFired
	outcomeSkipped
)

// runRule runs one rule's window: the chain is read outside any transaction, then the sweep
// is recorded under the rule's row lock after checking again that the window is still open and
// no sweep of the rule is pending, so two runners (the job and the clock helper) cannot both
// fire it.
func (s *Service) runRule(ctx context.Context, r treasury.Rule) (outcome, error) {
	a, err := s.accountOf(ctx, r)
	if err != nil {
		return outcomeNotDue, err
	}
	now := a.Now(s.clock.Now())
	if !r.Due(now) {
		return outcomeNotDue, nil
	}
	pending, err := s.previousPending(ctx, r.TenantID, r.ID)
	if err != nil {
		return outcomeNotDue, err
	}
	if pending {
		return outcomeSkipped, s.closeWindow(ctx, r.TenantID, r.ID, now, SkipPreviousPending)
	}
	d, err := s.evaluate(ctx, r, a)
	if err != nil {
		return outcomeNotDue, err
	}
	switch {
	case d.Skip != "":
		s.log.Info("treasury: rule window skipped", "ruleId", r.ID, "reason", d.Skip)
		return outcomeSkipped, s.closeWindow(ctx, r.TenantID, r.ID, now, d.Skip)
	case d.Amount <= 0:
		return outcomeQuiet, s.closeWindow(ctx, r.TenantID, r.ID, now, "")
	}
	sw := treasury.Sweep{ID: core.NewID(core.PrefixSweep), AccountID: a.ID, TenantID: a.TenantID, Environment: a.Environment,
		RuleID: r.ID, SourceBucketID: d.SourceID, DestBucketID: d.DestID, AmountBaseUnits: d.Amount, Status: treasury.SweepProposed}
	read, err := s.payments.ReadSweepPayment(ctx, kernel.System(a.TenantID, a.Environment, auth.ScopePaymentsCreate), sweepRequest(a, sw))
	if err != nil {
		return outcomeSkipped, s.closeWindow(ctx, r.TenantID, r.ID, now, notProposable(err))
	}
	fired := false
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		fired = false
		locked, err := tx.Treasury().LockRule(ctx, r.TenantID, r.ID)
		if err != nil || !locked.Due(now) {
			return err
		}
		if prev, ok, err := tx.Treasury().LatestRuleSweep(ctx, r.TenantID, r.ID); err != nil {
			return err
		} else if ok {
			pay, err := tx.Payments().FindPayment(ctx, prev.TenantID, prev.Environment, prev.PaymentID)
			if err != nil || treasury.PaymentPending(string(pay.Status)) {
				return err
			}
		}
		if _, err := s.recordSweep(ctx, tx, kernel.System(sw.TenantID, sw.Environment, auth.ScopePaymentsCreate), sw, read); err != nil {
			return err
		}
		locked.LastFiredAt, locked.LastEvaluatedAt = &now, &now
		fired = true
		return tx.Treasury().UpdateRule(ctx, locked)
	})
	var coded *core.Error
	if err != nil && errors.As(err, &coded) && coded.Code != core.CodeInternal {
		return outcomeSkipped, s.closeWindow(ctx, r.TenantID, r.ID, now, notProposable(err))
	}
	if err != nil || !fired {
		return outcomeNotDue, err
	}
	return outcomeFired, nil
}

func notProposable(err error) string {
	var coded *core.Error
	if errors.As(err, &coded) {
		return SkipNotProposable + ": " + string(coded.Code) + ": " + coded.Message
	}
	return SkipNotProposable
}

// evaluate reads the account's balances and decides the rule's window. A bucket's balance is
// read less what the account's sweeps still on their way take out of it (another rule's, a
// manual one's), so two rules on one source never propose together more than it holds: the
// later proposal would only fail on chain. A sweep whose transaction is mined and not yet
// recorded COMPLETED is counted twice for that moment, which only makes the window propose less.
func (s *Service) evaluate(ctx context.Context, r treasury.Rule, a treasury.Account) (treasury.Decision, error) {
	readings := s.readBalances(ctx, a)
	wallets := make([]string, len(a.Buckets))
	for i, b := range a.Buckets {
		wallets[i] = b.WalletID
	}
	var pending map[string]int64
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		pending, err = tx.Treasury().PendingSweepOutflows(ctx, a.TenantID, a.ID, wallets)
		return err
	})
	if err != nil {
		return treasury.Decision{}, err
	}
	for i, b := range a.Buckets {
		if readings[i].Readable {
			readings[i].Balance = max(readings[i].Balance-pending[b.ID], 0)
		}
	}
	return treasury.Decide(r, a, readings), nil
}

func (s *Service) accountOf(ctx context.Context, r treasury.Rule) (treasury.Account, error) {
	var a treasury.Account
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		a, err = tx.Treasury().FindAccount(ctx, r.TenantID, r.Environment, r.AccountID)
		return err
	})
	return a, err
}

// previousPending reports whether the rule's newest sweep's payment can still move money.
func (s *Service) previousPending(ctx context.Context, tenantID, ruleID string) (bool, error) {
	pending := false
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		prev, ok, err := tx.Treasury().LatestRuleSweep(ctx, tenantID, ruleID)
		if err != nil || !ok {
			return err
		}
		pay, err := tx.Payments().FindPayment(ctx, prev.TenantID, prev.Environment, prev.PaymentID)
		pending = err == nil && treasury.PaymentPending(string(pay.Status))
		return err
	})
	return pending, err
}

// closeWindow ends the rule's window at now; a non-empty reason records it as skipped.
func (s *Service) closeWindow(ctx context.Context, tenantID, ruleID string, now time.Time, reason string) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		r, err := tx.Treasury().LockRule(ctx, tenantID, ruleID)
		if err != nil || !r.Due(now) {
			return err
		}
		r.LastEvaluatedAt = &now
		if reason != "" {
			if len(reason) > 500 {
				reason = reason[:500]
			}
			r.LastSkippedAt, r.LastSkipReason = &now, reason
		}
		return tx.Treasury().UpdateRule(ctx, r)
	})
}
