package offramps

import (
	"context"
	"errors"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/ports"
)

// Screening leaves the process, so the composer never calls it: every use case whose unit of
// work may compose a payment prepares the verdicts first, outside any transaction (the
// Prepare* methods below, through the runner's or its own set of prepared answers), and the
// composer recalls them. The inputs of an existing payment (its parties and amount) never
// change, so a verdict prepared from a read before the unit is the verdict on the payment the
// unit locks.

// screeningAnswer is screening's verdict on one input, or why there is none.
type screeningAnswer struct {
	reasons []offramp.HoldReason
	err     error
}

// errNotScreened is the composer's answer when nobody prepared a verdict (a payment that
// entered the unit after its prepare read): it holds on POLICY_SUBSYSTEM_ERROR, a hold the
// recheck pass screens again, as an outage does.
var errNotScreened = errors.New("offramp: no screening verdict was prepared for this payment")

// screen recalls the verdict prepared for in.
func (s *Service) screen(ctx context.Context, in ports.ScreeningInput) ([]offramp.HoldReason, error) {
	answer, ok := kernel.Recall[screeningAnswer](ctx, ScreeningKey(in))
	if !ok {
		return nil, errNotScreened
	}
	return answer.reasons, answer.err
}

// prepareScreening asks screening about each input not yet answered, outside any transaction,
// and remembers the verdicts for the unit of work.
func (s *Service) prepareScreening(ctx context.Context, ins ...ports.ScreeningInput) {
	if s.screening == nil {
		return // the composer holds on POLICY_SUBSYSTEM_ERROR without asking
	}
	for _, in := range ins {
		key := ScreeningKey(in)
		if _, done := kernel.Recall[screeningAnswer](ctx, key); done {
			continue
		}
		reasons, err := s.screening.Screen(ctx, in)
		kernel.Remember(ctx, key, screeningAnswer{reasons: reasons, err: err})
	}
}

// screeningInput is what screening is asked about an existing payment.
func screeningInput(p offramp.Payment) ports.ScreeningInput {
	return ports.ScreeningInput{Environment: p.Environment, PaymentID: p.ID,
		SenderTenantID: p.SenderTenantID, RecipientTenantID: p.RecipientTenantID, AmountBaseUnits: p.SourceAmountBaseUnits}
}

// PreparePayments prepares the screening verdicts of the payments a unit of work may compose
// (a select or confirm that may requote, a claim redeemed, a job's payment): one short read of
// the payments, then screening outside any transaction. A payment with no recipient yet (a
// pending claim) or not found needs none.
func (s *Service) PreparePayments(ctx context.Context, ids ...string) error {
	var ins []ports.ScreeningInput
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		ins = ins[:0]
		for _, id := range ids {
			p, err := tx.Offramp().LockPayment(ctx, id)
			if core.HasCode(err, offramp.CodePaymentNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			if p.RecipientTenantID != "" {
				ins = append(ins, screeningInput(p))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.prepareScreening(ctx, ins...)
	return nil
}

// PrepareHeld prepares the verdicts of a recipient's held payments, which ReevaluateHeld
// composes again after something the recipient controls changed.
func (s *Service) PrepareHeld(ctx context.Context, env core.Environment, recipientTenantID string) error {
	var ids []string
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		ids, err = tx.Offramp().HeldPaymentIDs(ctx, env, recipientTenantID, maxDestinationsConsidered)
		return err
	})
	if err != nil || len(ids) == 0 {
		return err
	}
	return s.PreparePayments(ctx, ids...)
}

// PreparePaymentFor prepares the verdict of one payment the caller sends or receives (a route
// naming it by id); another tenant's payment is not read, and its unit answers not found.
func (s *Service) PreparePaymentFor(ctx context.Context, p auth.Principal, id string) error {
	var in *ports.ScreeningInput
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		pay, err := tx.Offramp().FindPayment(ctx, p.Environment, p.TenantID, id)
		if core.HasCode(err, offramp.CodePaymentNotFound) || err != nil {
			return nil // the unit of work answers it
		}
		if pay.RecipientTenantID != "" {
			found := screeningInput(pay)
			in = &found
		}
		return nil
	})
	if err != nil || in == nil {
		return err
	}
	s.prepareScreening(ctx, *in)
	return nil
}

// PrepareRedeem prepares the verdict of a claimed payment as its redeemer will receive it
// (the claim's payment gains its recipient inside the redeeming unit of work).
func (s *Service) PrepareRedeem(ctx context.Context, paymentID, recipientTenantID string) error {
	var in *ports.ScreeningInput
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		pay, err := tx.Offramp().LockPayment(ctx, paymentID)
		if err != nil {
			return nil // the unit of work answers it
		}
		pay.RecipientTenantID = recipientTenantID
		found := screeningInput(pay)
		in = &found
		return nil
	})
	if err != nil || in == nil {
		return err
	}
	s.prepareScreening(ctx, *in)
	return nil
}

// preparedUnit runs fn in one unit of work after preparing the screening verdicts of the
// payments ids, for a use case outside the runner (a job, an operator's action).
func (s *Service) preparedUnit(ctx context.Context, ids []string, fn func(ctx context.Context, tx txView) error) error {
	ctx = kernel.WithPrepared(ctx)
	if err := s.PreparePayments(ctx, ids...); err != nil {
		return err
	}
	return s.store.InTx(ctx, fn)
}
