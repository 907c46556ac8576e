package app

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/offramp"
	"corridor/core/recipient"
	"corridor/ledger"
	"corridor/ports"
)

// CreateOfframpInput is POST /v1/offramp/payments.
type CreateOfframpInput struct {
	Phone                  string
	AmountUSD              string
	ChainID                *int64
	FundingMode            string
	RequestedDestinationID string
	SpeedPreference        string
}

// OfframpView is a payment with its current quote set.
type OfframpView struct {
	Payment offramp.Payment
	Quotes  []offramp.Quote
}

type createPlan struct {
	phone   recipient.Phone
	amount  int64
	chainID int64
	speed   offramp.SpeedPreference
	destID  string
	funding string
}

func (a *App) planCreate(p auth.Principal, in CreateOfframpInput) (createPlan, error) {
	f := core.FieldErrors{}
	plan := createPlan{chainID: chainForEnv[p.Environment], funding: strings.TrimSpace(in.FundingMode),
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
	if in.ChainID != nil && *in.ChainID != plan.chainID {
		f.Add("chainId", "must be "+itoa(int(plan.chainID))+" for "+string(p.Environment)+" keys")
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

// CreateOfframpPayment is intake (SPEC.md intake outcomes 1, 3, 4 and 5) in one unit of work:
// resolve the phone to its recipient, reserve the amount on the sender's service balance,
// run the policy composer and, when it allows, create the first quote set. A phone no tenant
// has verified opens a pending claim (PENDING_CLAIM; see claims.go).
func (a *App) CreateOfframpPayment(ctx context.Context, p auth.Principal, in CreateOfframpInput) (OfframpView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return OfframpView{}, err
	}
	if err := a.requireRecipients(); err != nil {
		return OfframpView{}, err
	}
	plan, err := a.planCreate(p, in)
	if err != nil {
		return OfframpView{}, err
	}
	now := a.clock.Now()
	pay := offramp.Payment{ID: core.NewID(core.PrefixOffRamp), Environment: p.Environment, SenderTenantID: p.TenantID,
		RecipientPhoneHash:   a.offramp.cipher.LookupHash(hashPurposePhone, plan.phone.E164),
		RecipientPhoneMasked: recipient.MaskPhone(plan.phone.E164), SourceChainKey: offramp.ChainKey(plan.chainID),
		SourceAssetID: offramp.SourceAssetID(plan.chainID, usdcByChain[plan.chainID]), SourceAmountBaseUnits: plan.amount,
		FundingMode: plan.funding, RequestedDestinationID: plan.destID, SpeedPreference: plan.speed,
		Status: offramp.StatusCreated, HoldReasons: []offramp.HoldReason{}, CreatedAt: now, UpdatedAt: now}
	var view OfframpView
	err = a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if err := a.intake(ctx, tx, &pay); err != nil {
			return err
		}
		if err := tx.Offramp().CreatePayment(ctx, pay); err != nil {
			return err
		}
		next := func() error { return a.runPolicyCheck(ctx, tx, now, &pay) }
		if pay.Status == offramp.StatusPendingClaim {
			next = func() error { return a.openClaim(ctx, tx, now, &pay, plan.phone) }
		}
		if err := next(); err != nil {
			return err
		}
		if err := tx.Offramp().UpdatePayment(ctx, pay); err != nil {
			return err
		}
		quotes, err := tx.Offramp().ActiveQuotes(ctx, pay.ID)
		view = OfframpView{Payment: pay, Quotes: quotes}
		return err
	})
	return view, err
}

// intake walks CREATED → RECIPIENT_RESOLUTION → SOURCE_FUNDS_CONFIRMED (reserving) → POLICY_CHECK.
func (a *App) intake(ctx context.Context, tx ports.Tx, pay *offramp.Payment) error {
	now := pay.CreatedAt
	if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigIntake}, now); err != nil {
		return err
	}
	alias, err := tx.Recipients().FindVerifiedAlias(ctx, pay.Environment, pay.RecipientPhoneHash)
	if isCode(err, recipient.CodePhoneAliasNotFound) {
		return a.intakeUnknown(pay, now)
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
	if err := a.reserve(ctx, tx, now, pay); err != nil {
		return err
	}
	_, err = pay.Apply(offramp.Step{Trigger: offramp.TrigIntake}, now)
	return err
}

// intakeUnknown is intake outcome 2: nobody has verified the phone, so the payment waits in
// PENDING_CLAIM for a claim (opened by the caller once the payment row exists). A requested
// destination cannot belong to an unknown recipient.
func (a *App) intakeUnknown(pay *offramp.Payment, now time.Time) error {
	if pay.RequestedDestinationID != "" {
		return core.E(offramp.CodeDestinationNotEligible, "requestedDestinationId is not an ACTIVE payout destination of the recipient")
	}
	if _, err := a.escrow(pay.Environment); err != nil {
		return err
	}
	_, err := pay.Apply(offramp.Step{Trigger: offramp.TrigResolution, Guard: offramp.GuardPhoneUnknown}, now)
	return err
}

// GetOfframpPayment returns a payment the caller sends or receives.
func (a *App) GetOfframpPayment(ctx context.Context, p auth.Principal, id string) (offramp.Payment, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsRead); err != nil {
		return offramp.Payment{}, err
	}
	var out offramp.Payment
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, err = findForParty(ctx, tx, p, id, false)
		return err
	})
	return out, err
}

// ListOfframpPayments lists payments the caller sends or receives, newest first.
func (a *App) ListOfframpPayments(ctx context.Context, p auth.Principal, page ports.Page) ([]offramp.Payment, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsRead); err != nil {
		return nil, 0, err
	}
	var out []offramp.Payment
	var total int
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, total, err = tx.Offramp().ListPayments(ctx, ports.OfframpFilter{Environment: p.Environment, TenantID: p.TenantID}, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// OfframpRoutes returns the current active quote set.
func (a *App) OfframpRoutes(ctx context.Context, p auth.Principal, id string) ([]offramp.Quote, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsRead); err != nil {
		return nil, err
	}
	var out []offramp.Quote
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		pay, err := findForParty(ctx, tx, p, id, false)
		if err != nil {
			return err
		}
		out, err = tx.Offramp().ActiveQuotes(ctx, pay.ID)
		return err
	})
	return out, err
}

// destinationIdentifier decrypts a destination's identifier (for routing and submission only).
func (a *App) destinationIdentifier(d recipient.Destination) (recipient.Identifier, error) {
	var id recipient.Identifier
	if len(d.IdentifierCiphertext) == 0 {
		return id, nil
	}
	raw, err := a.offramp.cipher.Decrypt(d.IdentifierCiphertext, "payout_destination:"+d.ID)
	if err != nil {
		return id, err
	}
	return id, json.Unmarshal(raw, &id)
}

func lockedSpec(p offramp.Payment) ledger.AccountSpec {
	return ledger.OfframpLocked(p.Environment, kernel.ServiceAsset, p.SenderTenantID, p.ID)
}
