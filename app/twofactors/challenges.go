package twofactors

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/ports"
)

// VerifyChallenge checks a TOTP code of any ACTIVE factor against a PENDING challenge. A wrong
// code is counted (and committed) before TWOFA_INVALID_CODE answers; the MaxAttempts-th wrong
// code cancels the challenge (TWOFA_TOO_MANY_ATTEMPTS). Because challenges are cheap, a wrong
// code also spends the failure budgets of the tenant's environment and of every active factor
// (twofactor.FailureBudget within FailureWindow); an exhausted budget locks verification
// (429 RATE_LIMITED with Retry-After) before any code is compared. An agent key cannot approve
// (TWOFA_AGENT_NOT_PERMITTED). A SATISFIED challenge verified again answers unchanged.
func (s *Service) VerifyChallenge(ctx context.Context, p auth.Principal, id, code string) (twofactor.Challenge, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopePaymentsCreate); err != nil {
		return twofactor.Challenge{}, err
	}
	if p.AgentID != "" {
		return twofactor.Challenge{}, agentNotPermitted()
	}
	if err := validCodeShape(code); err != nil {
		return twofactor.Challenge{}, err
	}
	var ch twofactor.Challenge
	var refusal error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		refusal = nil
		var err error
		if ch, err = tx.TwoFactor().LockChallenge(ctx, p.TenantID, p.Environment, id); err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		switch {
		case ch.Status == twofactor.ChallengeCancelled:
			return tooManyAttempts(ch)
		case ch.Status == twofactor.ChallengeRedeemed:
			return notRedeemable(ch, "was already used by payment "+ch.PaymentID)
		case ch.Expired(now):
			return expired(ch)
		case ch.Status == twofactor.ChallengeSatisfied:
			return nil
		}
		active, err := activeFactorRows(ctx, tx.TwoFactor(), p)
		if err != nil {
			return err
		}
		budgets, locked, err := lockBudgets(ctx, tx.TwoFactor(), p, factorIDs(active), now)
		if err != nil || locked != nil {
			refusal = locked
			return err
		}
		for _, f := range active {
			ok, err := s.codeMatches(ctx, tx, f, code, now)
			if err != nil {
				return err
			}
			if ok {
				ch.Status, ch.SatisfiedAt = twofactor.ChallengeSatisfied, &now
				return tx.TwoFactor().UpdateChallenge(ctx, ch)
			}
		}
		refusal = wrongChallengeCode(&ch)
		if locked, err := spendBudgets(ctx, tx, budgets, now); err != nil || locked != nil {
			refusal = locked
			if err != nil {
				return err
			}
		}
		return tx.TwoFactor().UpdateChallenge(ctx, ch)
	})
	if err != nil {
		return twofactor.Challenge{}, err
	}
	return ch, refusal
}

// GateSafePayment applies contacts and two-factor approval to a proposed Safe payment, in that
// order, inside the proposal's unit of work (docs/payments.md, gate order):
//
//  1. a destination that is a saved contact younger than the cooling-off window: PAYEE_COOLING_OFF;
//  2. a destination that is not a saved contact, with requireSavedPayees: NEW_PAYEE_NOT_SAVED;
//  3. a payment the settings protect: an agent key gets TWOFA_AGENT_NOT_PERMITTED; without
//     challengeID, TWOFA_NOT_ENROLLED when no factor is ACTIVE, else a new challenge bound to
//     the transaction and TWOFA_REQUIRED; with challengeID, the challenge must be SATISFIED,
//     unexpired and bound to this very transaction, and is redeemed for pay.ID.
//
// A refusal is returned as refused (the caller commits what the gate wrote, the new challenge,
// and records no payment); err aborts the proposal.
func (s *Service) GateSafePayment(ctx context.Context, p auth.Principal, pay safepay.Payment, challengeID string) (refused *core.Error, err error) {
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		refused = nil
		var err error
		refused, err = s.gate(ctx, tx, p, pay, challengeID)
		return err
	})
	return refused, err
}

func (s *Service) gate(ctx context.Context, tx txView, p auth.Principal, pay safepay.Payment, challengeID string) (*core.Error, error) {
	// A payment to another wallet of the tenant (destination type wallet: treasury sweeps,
	// moves between the tenant's own Safes) pays no payee: contacts and approval do not apply.
	if pay.DestinationType == safepay.DestinationWallet {
		return nil, nil
	}
	repo := tx.TwoFactor()
	now := s.clock.Now().UTC()
	settings, err := repo.FindSettings(ctx, p.TenantID, p.Environment)
	if err != nil {
		return nil, err
	}
	contact, saved, err := repo.FindContactByAddress(ctx, p.TenantID, p.Environment, pay.DestinationAddress)
	if err != nil {
		return nil, err
	}
	if s.isPlatform(pay.DestinationAddress) {
		// The platform is no payee: a contact saved for it (before this rule) neither cools
		// off nor is needed, so a contact can never block an off-ramp. Amount approval stays.
		contact, saved = twofactor.Contact{}, true
	} else if saved {
		if refused := contact.CoolingOff(now, s.coolingOff); refused != nil {
			return refused, nil
		}
	} else if settings.RequireSavedPayees {
		return core.E(twofactor.CodeNewPayeeNotSaved, "%s is not a saved contact, and this tenant pays saved contacts only; save it with POST /v1/contacts (payments to it start after the cooling-off window)",
			pay.DestinationAddress).WithDetails(map[string]any{"destinationAddress": pay.DestinationAddress}), nil
	}
	// A transaction proposal declares no USDC amount (its calldata may move any), so it needs
	// approval whenever approval is on at all.
	needs := settings.NeedsApproval(pay.AmountBaseUnits, saved) || (pay.Call != nil && settings.Protected())
	if !needs {
		return nil, nil
	}
	if p.AgentID != "" {
		return agentNotPermitted(), nil
	}
	bound := twofactor.Transaction{TenantID: p.TenantID, Environment: p.Environment, SourceWalletID: pay.SourceWalletID,
		DestinationAddress: pay.DestinationAddress, ChainID: pay.DestinationChainID, Asset: pay.Asset, AmountBaseUnits: pay.AmountBaseUnits, Memo: pay.Memo}
	if pay.Call != nil {
		bound.IsCall, bound.CallValueWei, bound.CallData = true, pay.Call.ValueWei.String(), pay.Call.Data
	}
	binding := twofactor.Bind(bound)
	if challengeID != "" {
		return redeem(ctx, repo, p, pay.ID, challengeID, binding, now)
	}
	active, err := activeFactors(ctx, repo, p)
	if err != nil {
		return nil, err
	}
	if len(active) == 0 {
		return core.E(twofactor.CodeNotEnrolled, "this payment needs two-factor approval, and no factor is active; enroll and verify one with POST /v1/twofactor/factors"), nil
	}
	if refused, err := allowChallenge(ctx, repo, p, now); err != nil || refused != nil {
		return refused, err
	}
	label := destinationLabel(pay, contact, saved)
	ch := twofactor.Challenge{ID: core.NewID(core.PrefixChallenge), TenantID: p.TenantID, Environment: p.Environment, Binding: binding,
		SourceWalletID: pay.SourceWalletID, AmountBaseUnits: pay.AmountBaseUnits, DestinationAddress: pay.DestinationAddress,
		DestinationLabel: label, Status: twofactor.ChallengePending, ExpiresAt: now.Add(twofactor.ChallengeTTL), CreatedAt: now}
	if err := repo.CreateChallenge(ctx, ch); err != nil {
		return nil, err
	}
	return core.E(twofactor.CodeRequired, "this payment needs two-factor approval: verify a code on challenge %s, then send the same request with twofaChallengeId", ch.ID).
		WithDetails(map[string]any{
			"challengeId": ch.ID, "requiredFactors": 1, "factors": active, "expiresAt": ch.ExpiresAt.Format("2006-01-02T15:04:05Z07:00"),
			"transaction": map[string]any{"amountUsd": core.FormatUSD(pay.AmountBaseUnits), "destinationAddress": pay.DestinationAddress, "destinationLabel": label},
		}), nil
}

// wrongChallengeCode counts a wrong code against ch and returns its refusal: the
// MaxAttempts-th cancels the challenge.
func wrongChallengeCode(ch *twofactor.Challenge) *core.Error {
	ch.Attempts++
	if ch.Attempts >= twofactor.MaxAttempts {
		ch.Status = twofactor.ChallengeCancelled
		return tooManyAttempts(*ch)
	}
	return core.E(claim.CodeInvalidCode, "the code does not match an active factor; %d attempts remain", ch.AttemptsRemaining()).
		WithDetails(map[string]any{"challengeId": ch.ID, "attemptsRemaining": ch.AttemptsRemaining()})
}

// activeFactorRows are the tenant's ACTIVE factors of the environment.
func activeFactorRows(ctx context.Context, repo ports.TwoFactorRepo, p auth.Principal) ([]twofactor.Factor, error) {
	factors, err := repo.ListFactors(ctx, p.TenantID, p.Environment)
	if err != nil {
		return nil, err
	}
	var active []twofactor.Factor
	for _, f := range factors {
		if f.Status == twofactor.FactorActive {
			active = append(active, f)
		}
	}
	return active, nil
}

func factorIDs(factors []twofactor.Factor) []string {
	ids := make([]string, 0, len(factors))
	for _, f := range factors {
		ids = append(ids, f.ID)
	}
	return ids
}

// activeFactors lists the tenant's ACTIVE factors of the environment as a TWOFA_REQUIRED
// refusal names them.
func activeFactors(ctx context.Context, repo ports.TwoFactorRepo, p auth.Principal) ([]map[string]any, error) {
	factors, err := repo.ListFactors(ctx, p.TenantID, p.Environment)
	if err != nil {
		return nil, err
	}
	var active []map[string]any
	for _, f := range factors {
		if f.Status == twofactor.FactorActive {
			active = append(active, map[string]any{"id": f.ID, "type": f.Type, "label": f.Label})
		}
	}
	return active, nil
}

// redeem uses a satisfied challenge for usedBy (a payment's id, or the security change's
// subject); the row lock makes two parallel retries with one challenge act once.
func redeem(ctx context.Context, repo ports.TwoFactorRepo, p auth.Principal, usedBy, id, binding string, now time.Time) (*core.Error, error) {
	ch, err := repo.LockChallenge(ctx, p.TenantID, p.Environment, id)
	if err != nil {
		return nil, err
	}
	switch {
	case ch.Status == twofactor.ChallengeRedeemed:
		return notRedeemable(ch, "was already used by payment "+ch.PaymentID), nil
	case ch.Status == twofactor.ChallengeCancelled:
		return notRedeemable(ch, "was cancelled after too many wrong codes"), nil
	case ch.Expired(now):
		return expired(ch), nil
	case ch.Status != twofactor.ChallengeSatisfied:
		return notRedeemable(ch, "has no verified code yet"), nil
	case ch.Binding != binding:
		return core.E(twofactor.CodeBindingMismatch, "challenge %s approved another request (for a payment: wallet, destination, amount, asset or memo differ; for a security change: the change differs)", ch.ID).
			WithDetails(map[string]any{"challengeId": ch.ID}), nil
	}
	ch.Status, ch.RedeemedAt, ch.PaymentID = twofactor.ChallengeRedeemed, &now, usedBy
	return nil, repo.UpdateChallenge(ctx, ch)
}

func destinationLabel(pay safepay.Payment, c twofactor.Contact, saved bool) string {
	switch {
	case saved:
		return c.Label
	case pay.DestinationHandle != "":
		return pay.DestinationHandle
	}
	return ""
}

func agentNotPermitted() *core.Error {
	return core.E(twofactor.CodeAgentNotPermitted, "an agent key cannot complete an interactive two-factor challenge; a person approves with a session or a non-agent key")
}

func tooManyAttempts(ch twofactor.Challenge) *core.Error {
	return core.E(claim.CodeTooManyAttempts, "challenge %s was cancelled after %d wrong codes; propose the payment again for a new challenge", ch.ID, twofactor.MaxAttempts).
		WithDetails(map[string]any{"challengeId": ch.ID})
}

func expired(ch twofactor.Challenge) *core.Error {
	return core.E(claim.CodeChallengeExpired, "challenge %s expired at %s; propose the payment again for a new challenge", ch.ID, ch.ExpiresAt.Format("2006-01-02T15:04:05Z07:00")).
		WithDetails(map[string]any{"challengeId": ch.ID})
}

func notRedeemable(ch twofactor.Challenge, why string) *core.Error {
	return core.E(claim.CodeChallengeNotUsable, "challenge %s cannot approve this payment: it %s", ch.ID, why).
		WithDetails(map[string]any{"challengeId": ch.ID, "status": string(ch.Status)})
}
