package treasuries

import (
	"context"
	"fmt"
	"time"

	"github.com/corridorhq/corridor/app/kernel"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/ports"
)

// AdvanceRead is a validated clock advance with the balances its accrual uses, read before
// the unit of work.
type AdvanceRead struct {
	tenantID string
	account  treasury.Account
	days     int
	readings []treasury.Reading
}

// AdvanceResult is what the sandbox clock helper did.
type AdvanceResult struct {
	Account      treasury.Account
	DaysAdvanced int
	SimulatedNow time.Time
}

// ReadAdvance validates the sandbox clock helper's request and reads the buckets' balances
// (outside any unit of work).
func (s *Service) ReadAdvance(ctx context.Context, p auth.Principal, accountID string, days *int) (AdvanceRead, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryWrite); err != nil {
		return AdvanceRead{}, err
	}
	if days == nil {
		return AdvanceRead{}, core.Invalid("days", "is required")
	}
	if *days < 1 || *days > treasury.MaxAdvanceDays {
		return AdvanceRead{}, core.Invalid("days", "must be between 1 and 366")
	}
	a, err := s.findAccount(ctx, p, accountID)
	if err != nil {
		return AdvanceRead{}, err
	}
	return AdvanceRead{tenantID: p.TenantID, account: a, days: *days, readings: s.readBalances(ctx, a)}, nil
}

// Advance is the sandbox clock helper (docs/decisions/treasury.md): in one unit of work the account's
// simulated clock moves days ahead, each day passed books its yield (named by its simulated
// calendar day, so a day already booked is not booked again), and a job runs the account's
// rules at the new instant: every rule whose interval has passed fires or records its skip.
func (s *Service) Advance(ctx context.Context, p auth.Principal, read AdvanceRead) (AdvanceResult, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryWrite); err != nil {
		return AdvanceResult{}, err
	}
	if read.tenantID != p.TenantID {
		return AdvanceResult{}, core.E(core.CodeInternal, "treasury: an advance read for another tenant")
	}
	var out AdvanceResult
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		a, err := tx.Treasury().LockAccount(ctx, read.account.TenantID, read.account.ID)
		if err != nil {
			return err
		}
		if a.ClockOffsetDays+read.days > treasury.MaxClockOffsetDays {
			return core.Invalid("days", fmt.Sprintf("must be at most %d: the account's simulated clock is %d days ahead and runs at most %d days ahead",
				max(treasury.MaxClockOffsetDays-a.ClockOffsetDays, 0), a.ClockOffsetDays, treasury.MaxClockOffsetDays))
		}
		a.ClockOffsetDays += read.days
		if err := tx.Treasury().SetClockOffset(ctx, a.TenantID, a.ID, a.ClockOffsetDays); err != nil {
			return err
		}
		// The days just passed are the last read.days days of the offset, each named by its
		// simulated calendar day.
		now := a.Now(s.clock.Now())
		stepped := make([]time.Time, 0, read.days)
		for i := read.days - 1; i >= 0; i-- {
			stepped = append(stepped, now.Add(-time.Duration(i)*24*time.Hour))
		}
		if err := s.accrueDays(ctx, tx, a, read.readings, stepped); err != nil {
			return err
		}
		out = AdvanceResult{Account: a, DaysAdvanced: read.days, SimulatedNow: now}
		return s.jobs.Enqueue(ctx, RunAccountRulesArgs{AccountID: a.ID}, ports.JobOptions{MaxAttempts: runJobMaxAttempts})
	})
	return out, err
}
