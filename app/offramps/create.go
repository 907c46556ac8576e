package offramps

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
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
func (s *Service) CreatePayment(ctx context.Context, p auth.Principal, in CreatePaymentInput) (PaymentView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return PaymentView{}, err
	}
	if err := s.recipients.Ready(); err != nil {
		return PaymentView{}, err
	}
	plan, err := s.planCreate(p, in)
	if err != nil {
		return PaymentView{}, err
	}
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
	err = s.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		pay := base
		pay.HoldReasons = []offramp.HoldReason{}
		// The spend guard's early refusal: an agent key never spends the service balance (the
		// ledger's debit path refuses it too, with a less specific error).
		if err := spendFrom(ctx, tx, p, plan.funding, plan.amount); err != nil {
			return err
		}
		if err := s.intake(ctx, tx, &pay); err != nil {
			return err
		}
		if err := tx.Offramp().CreatePayment(ctx, pay); err != nil {
			return err
		}
		next := func() error { return s.RunPolicyCheck(ctx, tx, now, &pay) }
		if pay.Status == offramp.StatusPendingClaim {
			next = func() error { return s.claims.OpenClaim(ctx, tx, now, &pay, plan.phone) }
		}
		if err := next(); err != nil {
			return err
		}
		if err := savePayment(ctx, tx, pay); err != nil {
			return err
		}
		quotes, err := tx.Offramp().ActiveQuotes(ctx, pay.ID)
		view = PaymentView{Payment: pay, Quotes: quotes}
		return err
	})
	return view, err
}

// spendFrom puts a payment funded from the service balance to the spend guard's confinement.
func spendFrom(ctx context.Context, tx ports.Tx, p auth.Principal, funding string, amount int64) error {
	if funding != offramp.FundingInternalBalance {
		return nil
	}
	return kernel.ConfineSpend(ctx, tx, spend.Request{Principal: p, Source: spend.Source{Kind: spend.SourceServiceBalance},
		AmountBaseUnits: amount})
}

// intake walks CREATED → RECIPIENT_RESOLUTION → SOURCE_FUNDS_CONFIRMED (reserving) → POLICY_CHECK.
func (s *Service) intake(ctx context.Context, tx ports.Tx, pay *offramp.Payment) error {
	now := pay.CreatedAt
	if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigIntake}, now); err != nil {
		return err
	}
	alias, err := tx.Recipients().FindVerifiedAlias(ctx, pay.Environment, pay.RecipientPhoneHash)
	if core.HasCode(err, recipient.CodePhoneAliasNotFound) {
		return s.intakeUnknown(pay, now)
	}
	if err != nil {
		return err
	}
	if alias.TenantID == pay.SenderTenantID {
		return core.E(offramp.CodeSelfPayment, "this phone number is verified by your own tenant")
	}
	pay.RecipientTenantID = alias.TenantID
	if pay.RequestedDestinationID != "" {
		d, err := tx.Recipients().FindDestination(ctx, alias.TenantID, pay.Environment, pay.RequestedDestinationID)
		if err != nil || d.Status != recipient.DestActive {
			return core.E(offramp.CodeDestinationNotEligible, "requestedDestinationId is not an ACTIVE payout destination of the recipient")
		}
	}
	if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigResolution, Guard: offramp.GuardPhoneKnown}, now); err != nil {
		return err
	}
	if err := s.reserve(ctx, tx, now, pay); err != nil {
		return err
	}
	_, err = pay.Apply(offramp.Step{Trigger: offramp.TrigIntake}, now)
	return err
}

// intakeUnknown is intake outcome 2: nobody has verified the phone, so the payment waits in
// PENDING_CLAIM for a claim (opened by the caller once the payment row exists). A requested
// destination cannot belong to an unknown recipient.
func (s *Service) intakeUnknown(pay *offramp.Payment, now time.Time) error {
	if pay.RequestedDestinationID != "" {
		return core.E(offramp.CodeDestinationNotEligible, "requestedDestinationId is not an ACTIVE payout destination of the recipient")
	}
	if err := s.claims.EscrowReady(pay.Environment); err != nil {
		return err
	}
	_, err := pay.Apply(offramp.Step{Trigger: offramp.TrigResolution, Guard: offramp.GuardPhoneUnknown}, now)
	return err
}

func lockedSpec(p offramp.Payment) ledger.AccountSpec {
	return ledger.OfframpLocked(p.Environment, kernel.ServiceAsset, p.SenderTenantID, p.ID)
}
