package offramps

import (
	"context"
	"log/slog"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// payoutJobs is the off-ramp's work after a request has answered, run by its River workers:
// the submission and its re-check, polling a provider, the status a provider reports, a return,
// and the quote-expiry and hold-recheck sweeps. It holds only the ports it uses and, as small
// function values, the Service steps it shares with the request path (the composer, the
// policy check, the ledger posting), not the Service itself: so the request-facing Service
// stays within the method bound of test/architecture and the jobs cannot reach the rest of it.
type payoutJobs struct {
	store               kernel.Units[txView]
	jobs                ports.Jobs
	clock               ports.Clock
	log                 *slog.Logger
	payouts             payoutRails
	recipients          Recipients
	quoteExpiryInterval time.Duration
	holdRecheckInterval time.Duration
	// The Service steps the jobs share with the request path.
	preparePayments func(ctx context.Context, ids ...string) error
	preparedUnit    func(ctx context.Context, ids []string, fn func(ctx context.Context, tx txView) error) error
	compose         func(ctx context.Context, tx txView, p offramp.Payment, decided []offramp.HoldReason) (composition, error)
	runPolicyCheck  func(ctx context.Context, tx PaymentTx, now time.Time, p *offramp.Payment) error
	requoteExpired  func(ctx context.Context, tx txView, now time.Time, p *offramp.Payment) error
	post            func(ctx context.Context, l ports.LedgerRepo, now time.Time, p offramp.Payment, spec ledger.TransferSpec) (ledger.Transfer, error)
	ledger          payoutLedgerSteps
}

// payoutLedgerSteps are the ledger bookings of a provider's report (payoutLedger) the jobs use.
type payoutLedgerSteps struct {
	effect             func(ctx context.Context, tx txView, now time.Time, pay *offramp.Payment, effect offramp.Effect) (*ReceiveDeliveryArgs, error)
	receiveAfterCommit func(ctx context.Context, legs []ReceiveDeliveryArgs)
}

// newPayoutJobs hands the jobs the ports and steps they use, and nothing more (a function, not
// a Service method, so it takes no room in the Service's method bound).
func newPayoutJobs(s *Service) payoutJobs {
	l := payoutLedger{s}
	return payoutJobs{store: s.store, jobs: s.jobs, clock: s.clock, log: s.log, payouts: s.payouts, recipients: s.recipients,
		quoteExpiryInterval: s.quoteExpiryInterval, holdRecheckInterval: s.holdRecheckInterval,
		preparePayments: s.PreparePayments, preparedUnit: s.preparedUnit, compose: s.compose, runPolicyCheck: s.RunPolicyCheck,
		requoteExpired: s.requoteExpired, post: s.Post,
		ledger: payoutLedgerSteps{effect: l.effect, receiveAfterCommit: l.receiveAfterCommit}}
}

// RunSubmission re-checks a FUNDS_LOCKED payment (its confirmed quote still the active
// one, its destination ACTIVE, the full policy verdict ALLOW, its provider enabled) and submits
// it with the attempt's idempotency key. A failed re-check unlocks the funds, takes a new
// reservation and runs POLICY_CHECK again (a fresh set, a hold or a rejection). The provider
// call runs outside any transaction; a retried job resubmits with the same key.
func (s payoutJobs) RunSubmission(ctx context.Context, id string) error {
	ctx = kernel.WithPrepared(ctx)
	if err := s.preparePayments(ctx, id); err != nil {
		return err
	}
	req, rail, proceed, err := s.readySubmission(ctx, id)
	if err != nil || !proceed {
		return err
	}
	st, err := rail.Provider.Submit(ctx, req)
	if err != nil {
		return err
	}
	kernel.CrashPoint(kernel.CrashPayoutSubmitted)
	// The provider's answer: CLEARING with its reference and the first poll queued, or a
	// revoked destination handled.
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		now := s.clock.Now()
		pay, err := tx.Offramp().LockPayment(ctx, id)
		if err != nil || pay.Status != offramp.StatusFundsLocked || pay.ProviderReference != "" {
			return err
		}
		if st.State == ports.PayoutDestinationRevoked {
			return s.destinationRevoked(ctx, tx, now, &pay)
		}
		if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigProviderAccepts}, now); err != nil {
			return err
		}
		pay.ProviderReference = st.Reference
		if err := toClearing(ctx, tx, now, &pay); err != nil {
			return err
		}
		if err := savePayment(ctx, tx, pay); err != nil {
			return err
		}
		// The first poll runs at once (the internal rail reports success on it); later polls
		// follow every pollInterval until the provider's answer is final.
		return s.jobs.Enqueue(ctx, PollPayoutArgs{PaymentID: pay.ID}, ports.JobOptions{MaxAttempts: offrampJobMaxAttempts})
	})
}

// readySubmission is the re-check's unit of work: the payout request and its rail when the
// payment still goes out (proceed), or the failed re-check applied.
func (s payoutJobs) readySubmission(ctx context.Context, id string) (req ports.PayoutRequest, rail ports.PayoutRail, proceed bool, err error) {
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		// A retried run decides afresh: a submission an earlier, rolled-back run prepared
		// must not go out after a run that found nothing to submit.
		req, rail, proceed = ports.PayoutRequest{}, ports.PayoutRail{}, false
		now := s.clock.Now()
		pay, err := tx.Offramp().LockPayment(ctx, id)
		if err != nil || pay.Status != offramp.StatusFundsLocked || pay.ProviderReference != "" {
			return err
		}
		q, err := tx.Offramp().FindQuote(ctx, pay.SenderTenantID, pay.ID, pay.SelectedQuoteID)
		if err != nil {
			return err
		}
		why, hold, dest, err := s.recheck(ctx, tx, pay, q)
		if err != nil {
			return err
		}
		if why != "" {
			return s.recheckFailed(ctx, tx, now, &pay, why, hold)
		}
		rail, _ = s.payouts.provider(pay.Provider)
		ident, err := s.recipients.DestinationIdentifier(dest)
		if err != nil {
			return err
		}
		req = ports.PayoutRequest{IdempotencyKey: pay.IdempotencyKey(), PaymentID: pay.ID, Environment: pay.Environment,
			AmountBaseUnits: pay.SourceAmountBaseUnits, DeliverBaseUnits: q.DeliverBaseUnits, DestinationAmountMinor: q.DestinationAmountMinor,
			DestinationCurrency: q.DestinationCurrency, DestinationType: q.DestinationType, Destination: ident}
		proceed = true
		return nil
	})
	return req, rail, proceed, err
}

// destinationRevoked applies a provider's refusal of a payout because the recipient's
// destination is revoked at the provider: the destination becomes REVOKED (never routed
// again) and the payment leaves FUNDS_LOCKED as after a failed pre-submission re-check: its
// funds unlocked and reserved again, POLICY_CHECK over the recipient's remaining destinations
// (a fresh quote set, or a hold with PROVIDER_DESTINATION_REVOKED until the recipient adds a
// usable one). Nothing reached the provider, so no money moves beyond the unlock. A payment
// pinned to the revoked destination (requestedDestinationId) is unpinned: that choice can no
// longer be honoured, and the recipient chooses among the rest.
func (s payoutJobs) destinationRevoked(ctx context.Context, tx txView, now time.Time, pay *offramp.Payment) error {
	q, err := tx.Offramp().FindQuote(ctx, pay.SenderTenantID, pay.ID, pay.SelectedQuoteID)
	if err != nil {
		return err
	}
	if pay.RequestedDestinationID == q.DestinationID {
		pay.RequestedDestinationID = ""
	}
	if err := tx.Recipients().SetDestinationStatus(ctx, pay.RecipientTenantID, pay.Environment, q.DestinationID, recipient.DestRevoked); err != nil {
		return err
	}
	if s.log != nil {
		s.log.WarnContext(ctx, "offramp: provider reports the payout destination revoked; payment requoted",
			"paymentId", pay.ID, "provider", pay.Provider, "destinationId", q.DestinationID)
	}
	return s.recheckFailed(ctx, tx, now, pay, offramp.RequoteDestinationRevoked, "")
}

// recheck is the pre-submission re-check (docs/api.md): the confirmed quote still in force, its rail and
// provider offered, the destination ACTIVE, the credential unchanged, the policy verdict ALLOW.
// why is empty when every check passes, else the first that failed; hold is a reason the
// re-check itself found that the composer would not (the recipient's credential changed since
// the quote).
func (s payoutJobs) recheck(ctx context.Context, tx txView, pay offramp.Payment, q offramp.Quote) (offramp.RequoteReason, offramp.HoldReason, recipient.Destination, error) {
	// The confirmed quote must still be in force at submission: an expired one is requoted.
	if !q.Usable(s.clock.Now()) || q.ID != pay.SelectedQuoteID {
		return offramp.RequoteQuoteExpired, "", recipient.Destination{}, nil
	}
	if _, ok := s.payouts.rail(pay.Environment, q.DestinationType); !ok {
		return offramp.RequoteRailUnavailable, "", recipient.Destination{}, nil
	}
	if r, ok := s.payouts.provider(pay.Provider); !ok || r.Rail != q.DestinationType {
		return offramp.RequoteRailUnavailable, "", recipient.Destination{}, nil
	}
	dest, err := tx.Recipients().FindDestination(ctx, pay.RecipientTenantID, pay.Environment, q.DestinationID)
	if core.HasCode(err, recipient.CodeDestinationNotFound) {
		return offramp.RequoteDestinationUnavailable, "", dest, nil
	}
	if err != nil {
		return "", "", dest, err
	}
	if dest.Status != recipient.DestActive {
		return offramp.RequoteDestinationUnavailable, "", dest, nil
	}
	changed, err := s.credentialChangedSince(ctx, tx, pay, q.CreatedAt)
	if err != nil {
		return "", "", dest, err
	}
	if changed {
		return offramp.RequoteCredentialChanged, offramp.HoldCredentialChangedReview, dest, nil
	}
	c, err := s.compose(ctx, tx, pay, nil)
	if err != nil {
		return "", "", dest, err
	}
	if c.decision.Verdict != offramp.VerdictAllow {
		return offramp.RequotePolicyChanged, "", dest, nil
	}
	return "", "", dest, nil
}

// credentialChangedSince reports an ACTIVE credential of the recipient issued or updated after
// the quote was made (the payment's consent was given against another credential), unless an
// operator has already approved that review for the payment.
func (s payoutJobs) credentialChangedSince(ctx context.Context, tx txView, pay offramp.Payment, quotedAt time.Time) (bool, error) {
	cred, ok, err := tx.Recipients().FindCredential(ctx, pay.RecipientTenantID, pay.Environment)
	if err != nil || !ok || cred.Status != recipient.CredentialActive || !cred.UpdatedAt.After(quotedAt) {
		return false, err
	}
	approved, err := tx.Offramp().ApprovedReviewReasons(ctx, pay.SenderTenantID, pay.ID)
	for _, r := range approved {
		if r == offramp.HoldCredentialChangedReview {
			return false, err
		}
	}
	return true, err
}

// recheckFailed unlocks the funds, reserves them again and runs POLICY_CHECK, recording why
// (the payment's requoteReason and its event say it). hold, when set, is carried into
// POLICY_CHECK, where the composer keeps it until an operator approves it.
func (s payoutJobs) recheckFailed(ctx context.Context, tx txView, now time.Time, pay *offramp.Payment, why offramp.RequoteReason, hold offramp.HoldReason) error {
	pay.RequoteReason = why
	if err := unlock(ctx, tx, now, pay); err != nil {
		return err
	}
	if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigRecheckFailed}, now); err != nil {
		return err
	}
	if err := reserve(ctx, tx, now, pay); err != nil {
		return err
	}
	pay.Provider = ""
	if hold != "" {
		pay.HoldReasons = []offramp.HoldReason{hold}
	}
	if err := s.runPolicyCheck(ctx, tx, now, pay); err != nil {
		return err
	}
	return savePayment(ctx, tx, *pay)
}

// PollPayment asks the payment's provider for the current attempt's status once (the
// mock advances one scripted step) and applies it. final says the provider will report no
// further change.
func (s payoutJobs) PollPayment(ctx context.Context, id string) (bool, error) {
	var pay offramp.Payment
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		pay, err = tx.Offramp().LockPayment(ctx, id)
		return err
	})
	if err != nil {
		return false, err
	}
	if pay.ProviderReference == "" || pay.Status == offramp.StatusRefunded || pay.Status == offramp.StatusCanceled {
		return true, nil
	}
	rail, ok := s.payouts.provider(pay.Provider)
	if !ok {
		return false, core.E(core.CodeFeatureNotAvailable, "payout provider %s is not configured", pay.Provider)
	}
	st, err := rail.Provider.Poll(ctx, pay.ProviderReference)
	if err != nil {
		return false, err
	}
	return st.Final, s.applyPayoutStatus(ctx, id, pay.ProviderReference, st)
}

// GiveUpPolling moves a payout still at its provider (PROVIDER_SUBMITTED or PROVIDER_PROCESSING)
// whose polls are exhausted to ACTION_REQUIRED with hold PROVIDER_UNRESPONSIVE, so partners and
// operators see it waiting instead of a payment "processing" forever. The money stays in the
// provider's clearing account: the provider may still pay out. A later report (webhook or poll)
// moves it on (applyPayoutStatus). Any other status is left as it is.
func (s payoutJobs) GiveUpPolling(ctx context.Context, id string) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		now := s.clock.Now()
		pay, err := tx.Offramp().LockPayment(ctx, id)
		if err != nil {
			return err
		}
		if pay.Status != offramp.StatusProviderSubmitted && pay.Status != offramp.StatusProviderProcessing {
			return nil
		}
		if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigProviderUnresponsive}, now); err != nil {
			return err
		}
		pay.HoldReasons = []offramp.HoldReason{offramp.HoldProviderUnresponsive}
		if s.log != nil {
			s.log.WarnContext(ctx, "offramp: payout polls exhausted, payment waits in ACTION_REQUIRED",
				"paymentId", pay.ID, "provider", pay.Provider, "reason", string(offramp.HoldProviderUnresponsive))
		}
		return savePayment(ctx, tx, pay)
	})
}

// unresponsive reports a payment given up on by GiveUpPolling.
func unresponsive(pay offramp.Payment) bool {
	if pay.Status != offramp.StatusActionRequired {
		return false
	}
	for _, r := range pay.HoldReasons {
		if r == offramp.HoldProviderUnresponsive {
			return true
		}
	}
	return false
}

// applyPayoutStatus moves a payment along what its provider reported. Reports arrive from
// polls and webhooks in any order and any number of times: each applies only from the
// statuses it can follow, so replays and late reports change nothing, and DELIVERED never
// reverts (a later RETURNED is recorded as a return, once).
func (s payoutJobs) applyPayoutStatus(ctx context.Context, id, reference string, st ports.PayoutStatus) error {
	var legs []ReceiveDeliveryArgs
	err := s.preparedUnit(ctx, []string{id}, func(ctx context.Context, tx txView) error {
		legs = nil // a retried unit starts afresh
		now := s.clock.Now()
		pay, err := tx.Offramp().LockPayment(ctx, id)
		if err != nil || pay.ProviderReference != reference {
			return err
		}
		step := func(next offramp.Step) error {
			row, err := pay.Apply(next, now)
			if err != nil {
				return err
			}
			leg, err := s.ledger.effect(ctx, tx, now, &pay, row.Effect)
			if leg != nil {
				legs = append(legs, *leg)
			}
			return err
		}
		// A payment given up on (polls exhausted) resumes on the provider's next report that is
		// not a failure: back to PROVIDER_PROCESSING, its hold cleared, polled again; success
		// then delivers as for any payment in flight.
		resumed := false
		if unresponsive(pay) && (st.State == ports.PayoutPending || st.State == ports.PayoutSucceeded || st.State == ports.PayoutReturned) {
			if err := step(offramp.Step{Trigger: offramp.TrigProviderResumed}); err != nil {
				return err
			}
			pay.HoldReasons, resumed = []offramp.HoldReason{}, true
		}
		if unresponsive(pay) && st.State == ports.PayoutFailed {
			pay.HoldReasons = []offramp.HoldReason{}
		}
		steps := payoutSteps(&pay, st.State)
		for _, next := range steps {
			if err := step(next); err != nil {
				return err
			}
		}
		if st.State == ports.PayoutReturned && pay.Status == offramp.StatusDelivered {
			if err := s.recordReturn(ctx, tx, now, pay); err != nil {
				return err
			}
		}
		if len(steps) == 0 && !resumed {
			return nil
		}
		if err := savePayment(ctx, tx, pay); err != nil {
			return err
		}
		if resumed && !st.Final {
			// The poll job that gave up has ended: poll again, with a fresh window.
			return s.jobs.Enqueue(ctx, PollPayoutArgs{PaymentID: pay.ID}, ports.JobOptions{MaxAttempts: offrampJobMaxAttempts})
		}
		return nil
	})
	if err == nil {
		s.ledger.receiveAfterCommit(ctx, legs)
	}
	return err
}

// payoutLedger books what a provider's report moves: the seam between a payment's status and
// its ledger legs.
type payoutLedger struct{ s *Service }

// effect books a provider report's ledger effect: the delivery (and, into another tenant's
// balance, the recipient's leg to post once the unit commits) or the refund from the clearing
// account the payment's money is in.
func (l payoutLedger) effect(ctx context.Context, tx txView, now time.Time, pay *offramp.Payment, effect offramp.Effect) (*ReceiveDeliveryArgs, error) {
	switch effect {
	case offramp.EffectDeliver:
		q, err := tx.Offramp().FindQuote(ctx, pay.SenderTenantID, pay.ID, pay.SelectedQuoteID)
		if err != nil {
			return nil, err
		}
		return l.deliver(ctx, tx, now, pay, q)
	case offramp.EffectRefund:
		from, err := clearingOf(ctx, tx, *pay)
		if err != nil {
			return nil, err
		}
		return nil, refund(ctx, tx, now, pay, from)
	}
	return nil, nil
}

// payoutSteps are the steps a provider's report moves a payment through from its status: none
// for a report it cannot follow (a replay, a late report). A failure records its reason on pay.
func payoutSteps(pay *offramp.Payment, state ports.PayoutState) []offramp.Step {
	inFlight := pay.Status == offramp.StatusProviderSubmitted || pay.Status == offramp.StatusProviderProcessing
	var steps []offramp.Step
	switch state {
	case ports.PayoutPending:
		if pay.Status == offramp.StatusProviderSubmitted {
			steps = []offramp.Step{{Trigger: offramp.TrigProviderProgress}}
		}
	case ports.PayoutSucceeded, ports.PayoutReturned:
		if pay.Status == offramp.StatusProviderSubmitted {
			steps = append(steps, offramp.Step{Trigger: offramp.TrigProviderProgress})
		}
		if inFlight {
			steps = append(steps, offramp.Step{Trigger: offramp.TrigProviderSuccess})
		}
	case ports.PayoutBlocked:
		if inFlight {
			steps = []offramp.Step{{Trigger: offramp.TrigProviderAttention}}
		}
	case ports.PayoutFailed:
		if inFlight || pay.Status == offramp.StatusActionRequired || pay.Status == offramp.StatusFundsLocked {
			pay.FailureReason = "PROVIDER_FAILED"
			steps = []offramp.Step{{Trigger: offramp.TrigProviderFailure, Guard: offramp.GuardProviderStage},
				{Trigger: offramp.TrigRefundPath}, {Trigger: offramp.TrigRefundSettled}}
		}
	}
	return steps
}

// recordReturn books a post-delivery return once: DELIVERED stays; the delivered amount comes
// back from the rail's outside world to the sender with its own transfer. The fee is kept.
func (s payoutJobs) recordReturn(ctx context.Context, tx txView, now time.Time, pay offramp.Payment) error {
	q, err := tx.Offramp().FindQuote(ctx, pay.SenderTenantID, pay.ID, pay.SelectedQuoteID)
	if err != nil {
		return err
	}
	accs, err := tx.Ledger().OpenAccounts(ctx, now, deliverySide(pay, q), ledger.TenantAvailable(pay.Environment, kernel.ServiceAsset, pay.SenderTenantID))
	if err != nil {
		return err
	}
	t, err := s.post(ctx, tx.Ledger(), now, pay, ledger.TransferSpec{Reference: pay.LedgerRef("return", pay.Attempt),
		Type: ledger.TypePosted, Postings: ledger.Move(accs[0].ID, accs[1].ID, q.DeliverBaseUnits)})
	if err != nil {
		return err
	}
	_, err = tx.Offramp().RecordReturn(ctx, pay.SenderTenantID, pay.ID, t.ID, q.DeliverBaseUnits, now)
	return err
}
