package invoices

import (
	"context"
	"fmt"
	"github.com/corridorhq/corridor/app/kernel"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// PollInvoices is one pass of the balance poller over env's watched invoices: a SENT invoice
// becomes FUNDED when its hold Safe covers the amount, else EXPIRED once expiresAt passed
// (funds win: the balance is read before expiry is decided); an invoice with a settlement
// payment becomes RELEASED or REFUNDED when that payment COMPLETED, and is unlinked when it
// FAILED or was CANCELLED. One invoice's failure is logged and does not stop the pass.
func (s *Service) PollInvoices(ctx context.Context, env core.Environment) error {
	after := ""
	for range pollMaxPages {
		var page []invoice.Invoice
		err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
			var err error
			page, err = tx.Invoices().ListPollable(ctx, env, after, pollBatch)
			return err
		})
		if err != nil {
			return err
		}
		for _, inv := range page {
			if err := s.PollInvoice(ctx, inv.ID); err != nil {
				s.log.Warn("invoices: poll failed", "invoiceId", inv.ID, "error", err.Error())
			}
			after = inv.ID
		}
		if len(page) < pollBatch {
			return nil
		}
	}
	return nil
}

// PollInvoice polls one invoice now.
func (s *Service) PollInvoice(ctx context.Context, id string) error {
	var inv invoice.Invoice
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		inv, err = tx.Invoices().FindPublicInvoice(ctx, id)
		return err
	})
	if err != nil {
		return err
	}
	switch {
	case inv.Status == invoice.StatusSent && inv.HoldAddress != "":
		return s.pollFunding(ctx, inv)
	case inv.SettlementPaymentID() != "" && !inv.Status.Terminal():
		return s.pollSettlement(ctx, inv)
	}
	return nil
}

// pollFunding reads the hold Safe's balance outside any unit of work, then decides under the
// invoice's lock with the invoice's clock read after the balance: funds win over expiry.
func (s *Service) pollFunding(ctx context.Context, inv invoice.Invoice) error {
	balance, err := s.holdBalance(ctx, inv)
	if err != nil {
		return err
	}
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		locked, err := tx.Invoices().LockInvoice(ctx, inv.TenantID, inv.ID)
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		trigger, ok := invoice.Poll(locked, balance, locked.Now(now))
		if !ok {
			return nil
		}
		next, err := locked.Apply(trigger, now)
		if err != nil {
			return err
		}
		return saveInvoice(ctx, tx, next, false)
	})
}

// pollSettlement follows the linked settlement payment.
func (s *Service) pollSettlement(ctx context.Context, inv invoice.Invoice) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		locked, err := tx.Invoices().LockInvoice(ctx, inv.TenantID, inv.ID)
		if err != nil {
			return err
		}
		id := locked.SettlementPaymentID()
		if id == "" || locked.Status.Terminal() {
			return nil
		}
		pay, err := tx.Payments().FindPayment(ctx, locked.TenantID, locked.Environment, id)
		if err != nil {
			return fmt.Errorf("invoices: settlement payment %s: %w", id, err)
		}
		now := s.clock.Now().UTC()
		var next invoice.Invoice
		switch pay.Status {
		case safepay.StatusCompleted:
			if next, err = locked.Settled(now); err != nil {
				return err
			}
		case safepay.StatusFailed, safepay.StatusCancelled:
			next = locked.Unlink(now)
		default:
			return nil
		}
		return saveInvoice(ctx, tx, next, false)
	})
}

// Advance is the TEST clock helper: it moves the invoice's clock seconds ahead and polls it at
// once (a job, after commit), as the periodic poller would at that instant.
func (s *Service) Advance(ctx context.Context, p auth.Principal, id string, seconds *int64) (invoice.Invoice, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesWrite); err != nil {
		return invoice.Invoice{}, err
	}
	if seconds == nil {
		return invoice.Invoice{}, core.Invalid("seconds", "is required")
	}
	if *seconds < 1 || *seconds > invoice.MaxAdvanceSeconds {
		return invoice.Invoice{}, core.Invalid("seconds", "must be between 1 and 31622400")
	}
	var out invoice.Invoice
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		inv, err := s.lockCallerInvoice(ctx, tx, p, id)
		if err != nil {
			return err
		}
		if inv.ClockOffsetSeconds+*seconds > invoice.MaxClockOffsetSeconds {
			return core.Invalid("seconds", fmt.Sprintf("must be at most %d: the invoice's clock is %d seconds ahead and runs at most %d seconds ahead",
				max(invoice.MaxClockOffsetSeconds-inv.ClockOffsetSeconds, 0), inv.ClockOffsetSeconds, int64(invoice.MaxClockOffsetSeconds)))
		}
		inv.ClockOffsetSeconds += *seconds
		inv.UpdatedAt = s.clock.Now().UTC()
		if err := saveInvoice(ctx, tx, inv, false); err != nil {
			return err
		}
		out = inv
		return s.jobs.Enqueue(ctx, PollInvoiceArgs{InvoiceID: inv.ID}, ports.JobOptions{MaxAttempts: pollJobMaxAttempts})
	})
	return out, err
}
