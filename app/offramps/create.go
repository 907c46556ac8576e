package offramps

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// CreatePaymentInput is POST /v1/offramp/payments.
type CreatePaymentInput struct {
	Phone                  string
	AmountUSD              string
	ChainID                *int64
	FundingMode            string
	RequestedDestinationID string
	SpeedPreference        string
}

// PaymentView is a payment with its current quote set.
type PaymentView struct {
	Payment offramp.Payment
	Quotes  []offramp.Quote
}

type createPlan struct {
	phone   recipient.Phone
	amount  int64
	source  kernel.SourceChain
	speed   offramp.SpeedPreference
	destID  string
	funding string
}

func (s *Service) planCreate(p auth.Principal, in CreatePaymentInput) (createPlan, error) {
	f := core.FieldErrors{}
	source, err := s.sourceChains.Require(p.Environment)
	if err != nil {
		return createPlan{}, err
	}
	plan := createPlan{source: source, funding: strings.TrimSpace(in.FundingMode),
		speed: offramp.SpeedPreference(in.SpeedPreference), destID: strings.TrimSpace(in.RequestedDestinationID)}
	switch plan.funding {
	case "":
		plan.funding = offramp.FundingInternalBalance
	case offramp.FundingInternalBalance:
	case offramp.FundingOnchainDeposit, offramp.FundingSafeProposal:
		return plan, core.E(offramp.CodeFundingModeNotAvailable, "funding mode %s is not available yet; use INTERNAL_BALANCE", plan.funding)
	default:
		f.Add("fundingMode", "must be INTERNAL_BALANCE, ONCHAIN_DEPOSIT or SAFE_PROPOSAL")
	}
	phone, err := recipient.ParsePhone("phone", in.Phone)
	if err != nil {
		f.Add("phone", "must be a valid E.164 phone number")
	}
	plan.phone = phone
	amount, err := core.ParseUSD("amountUsd", in.AmountUSD)
	switch {
	case err != nil:
		f.Add("amountUsd", "must be a positive USD amount with at most 6 fraction digits")
	case amount <= 0 || amount > offramp.MaxAmountBaseUnits:
		f.Add("amountUsd", "must be greater than 0 and at most "+core.FormatUSD(offramp.MaxAmountBaseUnits))
	}
	plan.amount = amount
	if in.ChainID != nil && *in.ChainID != plan.source.ChainID {
		f.Add("chainId", "must be "+strconv.Itoa(int(plan.source.ChainID))+" for "+string(p.Environment)+" keys")
	}
	switch plan.speed {
	case "":
		plan.speed = offramp.SpeedCheapest
	case offramp.SpeedCheapest, offramp.SpeedFastest:
	default:
		f.Add("speedPreference", "must be FASTEST or CHEAPEST")
	}
	return plan, f.Err()
}

// CreatePayment is intake (docs/api.md intake outcomes 1, 3, 4 and 5) in one unit of work:
// resolve the phone to its recipient, reserve the amount on the sender's service balance,
// run the policy composer and, when it allows, create the first quote set. A phone no tenant
// has verified opens a pending claim (PENDING_CLAIM; see app/claims).
//
// CreatePayment runs both steps (PrepareCreate, then ApplyCreate), for a caller outside the
// HTTP runner, which must be outside any unit of work.
func (s *Service) CreatePayment(ctx context.Context, p auth.Principal, in CreatePaymentInput) (PaymentView, error) {
	ctx = kernel.WithPrepared(ctx)
	prepared, err := s.PrepareCreate(ctx, p, in)
	if err != nil {
		return PaymentView{}, err
	}
	return s.ApplyCreate(ctx, p, prepared)
}

// PreparedCreate is a validated intake whose recipient was looked up and screened, outside
// any transaction.
type PreparedCreate struct {
	tenantID string
	plan     createPlan
}

// PrepareCreate validates the request, resolves the phone to its recipient with a short read
// and asks screening about the sender, the recipient and the amount, remembering the verdict
// (ctx carries the runner's prepared answers). A phone nobody verified needs no screening
// yet: the payment waits for a claim.
func (s *Service) PrepareCreate(ctx context.Context, p auth.Principal, in CreatePaymentInput) (PreparedCreate, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return PreparedCreate{}, err
	}
	if err := s.recipients.Ready(); err != nil {
		return PreparedCreate{}, err
	}
	plan, err := s.planCreate(p, in)
	if err != nil {
		return PreparedCreate{}, err
	}
	var alias recipient.Alias
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		alias, err = tx.Recipients().FindVerifiedAlias(ctx, p.Environment, s.recipients.PhoneHash(plan.phone.E164))
		if core.HasCode(err, recipient.CodePhoneAliasNotFound) {
			return nil
		}
		return err
	})
	if err != nil {
		return PreparedCreate{}, err
	}
	if alias.TenantID != "" && alias.TenantID != p.TenantID {
		s.prepareScreening(ctx, ports.ScreeningInput{Environment: p.Environment, SenderTenantID: p.TenantID,
			RecipientTenantID: alias.TenantID, AmountBaseUnits: plan.amount})
	}
	return PreparedCreate{tenantID: p.TenantID, plan: plan}, nil
}

// ApplyCreate is intake's unit of work, deciding with the verdict PrepareCreate remembered.
func (s *Service) ApplyCreate(ctx context.Context, p auth.Principal, prepared PreparedCreate) (PaymentView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return PaymentView{}, err
	}
	if prepared.tenantID != p.TenantID {
		return PaymentView{}, core.E(core.CodeInternal, "offramp: a payment prepared for another caller")
	}
	plan := prepared.plan
	now := s.clock.Now()
	// base is the payment before intake. The unit of work may run more than once (a
	// serialization failure retries it), so each run starts again from base and only the
	// committed run's result leaves the closure.
	base := offramp.Payment{ID: core.NewID(core.PrefixOffRamp), Environment: p.Environment, SenderTenantID: p.TenantID,
		RecipientPhoneHash:   s.recipients.PhoneHash(plan.phone.E164),
		RecipientPhoneMasked: recipient.MaskPhone(plan.phone.E164), SourceChainKey: offramp.ChainKey(plan.source.ChainID),
		SourceAssetID: offramp.SourceAssetID(plan.source.ChainID, plan.source.USDC), SourceAmountBaseUnits: plan.amount,
		FundingMode: plan.funding, RequestedDestinationID: plan.destID, SpeedPreference: plan.speed,
		Status: offramp.StatusCreated, HoldReasons: []offramp.HoldReason{}, CreatedAt: now, UpdatedAt: now}
	var view PaymentView
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		pay := base
		pay.HoldReasons = []offramp.HoldReason{}
		// The spend guard's early refusal: an agent key never spends the service balance (the
		// guard's Decide in intake refuses it too, as does the ledger's debit path).
		if err := kernel.CheckConfinement(ctx, tx, spend.Request{Principal: p, Source: spend.Source{Kind: spend.SourceServiceBalance}}); err != nil {
			return err
		}
		decided, err := s.intake(ctx, tx, p, &pay)
		if err != nil {
			return err
		}
		if err := tx.Offramp().CreatePayment(ctx, pay); err != nil {
			return err
		}
		next := func() error { return s.runPolicyCheck(ctx, tx, now, &pay, decided) }
		if pay.Status == offramp.StatusPendingClaim {
			next = func() error {
				if err := s.claimNeeded.RaiseHeard(ctx, offramp.ClaimNeeded{Payment: &pay, Phone: plan.phone, At: now}); err != nil {
					return err
				}
				return claimOpened(pay)
			}
		}
		if err := next(); err != nil {
			return err
		}
		if err := savePayment(ctx, tx, pay); err != nil {
			return err
		}
		quotes, err := tx.Offramp().ActiveQuotes(ctx, pay.SenderTenantID, pay.ID)
		view = PaymentView{Payment: pay, Quotes: quotes}
		return err
	})
	return view, err
}

// intake walks CREATED → RECIPIENT_RESOLUTION → SOURCE_FUNDS_CONFIRMED (reserving) → POLICY_CHECK.
// The spend is decided by the spend guard (decideSpend) before anything is reserved: for a
// known recipient with the service balance's spend policy, whose hold reasons (decided) the
// composer then applies without evaluating the policy again; a payment the policy denies
// reserves nothing and the composer cancels it (POLICY_DENIED). A payment to an unknown phone
// is decided without the policy (agent confinement): its money only moves into the tenant's
// claim escrow, and the policy decides when the claim is redeemed, before it leaves.
func (s *Service) intake(ctx context.Context, tx txView, actor auth.Principal, pay *offramp.Payment) (decided []offramp.HoldReason, err error) {
	now := pay.CreatedAt
	if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigIntake}, now); err != nil {
		return nil, err
	}
	alias, err := tx.Recipients().FindVerifiedAlias(ctx, pay.Environment, pay.RecipientPhoneHash)
	if core.HasCode(err, recipient.CodePhoneAliasNotFound) {
		if _, err := s.decideSpend(ctx, tx, actor, *pay, false); err != nil {
			return nil, err
		}
		return nil, s.intakeUnknown(pay, now)
	}
	if err != nil {
		return nil, err
	}
	if alias.TenantID == pay.SenderTenantID {
		return nil, core.E(offramp.CodeSelfPayment, "this phone number is verified by your own tenant")
	}
	pay.RecipientTenantID = alias.TenantID
	if pay.RequestedDestinationID != "" {
		d, err := tx.Recipients().FindDestination(ctx, alias.TenantID, pay.Environment, pay.RequestedDestinationID)
		if err != nil || d.Status != recipient.DestActive {
			return nil, core.E(offramp.CodeDestinationNotEligible, "requestedDestinationId is not an ACTIVE payout destination of the recipient")
		}
	}
	if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigResolution, Guard: offramp.GuardPhoneKnown}, now); err != nil {
		return nil, err
	}
	if decided, err = s.decideSpend(ctx, tx, actor, *pay, true); err != nil {
		return nil, err
	}
	if !slices.Contains(decided, offramp.RejectPolicyDenied) {
		if err := reserve(ctx, tx, now, pay); err != nil {
			return nil, err
		}
	}
	_, err = pay.Apply(offramp.Step{Trigger: offramp.TrigIntake}, now)
	return decided, err
}

// decideSpend puts the payment's spend of the sender's service balance to the spend guard
// (kernel.SpendGuard.Decide), on actor's behalf: agent confinement, then, withPolicy, the
// service balance's spend policy. It answers the policy's hold reasons for the composer: none
// (allowed, or only logged), POLICY_SUBSYSTEM_ERROR (enforce mode, the policy store failing: a
// hold, so the spend passes to a reservation and the payment waits held), or POLICY_DENIED (a
// refusal: nothing may be reserved, and the composer cancels the payment). A confinement
// refusal or a store failure is err.
func (s *Service) decideSpend(ctx context.Context, tx txView, actor auth.Principal, pay offramp.Payment, withPolicy bool) ([]offramp.HoldReason, error) {
	holds := []offramp.HoldReason{} // decided, even when empty (compose decides a nil again)
	checks := kernel.SpendChecks{}
	if withPolicy {
		checks.Policy = func(ctx context.Context) (*core.Error, error) {
			holds = append(holds[:0], s.spendPolicy.SenderSpendHolds(ctx, pay)...)
			if slices.Contains(holds, offramp.RejectPolicyDenied) {
				return core.E(policy.CodeDenied, "the spend policy of the sender's service balance denies this payment"), nil
			}
			return nil, nil
		}
	}
	req := spend.Request{Principal: actor, Source: spend.Source{Kind: spend.SourceServiceBalance},
		AmountBaseUnits: pay.SourceAmountBaseUnits, Counterparty: pay.RecipientTenantID, Reference: pay.ID}
	_, _, err := s.guard.Decide(ctx, tx, req, checks)
	return holds, err
}

// intakeUnknown is intake outcome 2: nobody has verified the phone, so the payment waits in
// PENDING_CLAIM for a claim (opened by the caller once the payment row exists). A requested
// destination cannot belong to an unknown recipient.
func (s *Service) intakeUnknown(pay *offramp.Payment, now time.Time) error {
	if pay.RequestedDestinationID != "" {
		return core.E(offramp.CodeDestinationNotEligible, "requestedDestinationId is not an ACTIVE payout destination of the recipient")
	}
	if _, err := s.claimEscrows.Require(pay.Environment); err != nil {
		return err
	}
	_, err := pay.Apply(offramp.Step{Trigger: offramp.TrigResolution, Guard: offramp.GuardPhoneUnknown}, now)
	return err
}

// claimOpened checks a payment stored in PENDING_CLAIM after its ClaimNeeded: the pending-claims
// capability opened its claim and reserved its amount. A reaction that set no claim would leave
// the payment waiting for nothing, so that fails the step.
func claimOpened(pay offramp.Payment) error {
	if pay.ClaimID == "" || pay.HoldTransferID == "" {
		return core.E(core.CodeInternal, "payment %s is PENDING_CLAIM but no claim was opened for it", pay.ID)
	}
	return nil
}

func lockedSpec(p offramp.Payment) ledger.AccountSpec {
	return ledger.OfframpLocked(p.Environment, kernel.ServiceAsset, p.SenderTenantID, p.ID)
}
