package cards

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// sandboxMessage is the refusal of a LIVE caller: cards is sandbox only (docs/decisions/tenancy.md).
const sandboxMessage = "the card authorization helpers are sandbox only"

// AuthorizeInput is the sandbox till's request: POST /v1/sandbox/cards/{id}/authorizations.
type AuthorizeInput struct {
	AmountUsd    string
	MCC          string
	MerchantName string
	Counterparty *string
}

func parseAuthorize(in AuthorizeInput) (card.Request, string, string, error) {
	errs := core.FieldErrors{}
	amount, err := core.ParseUSD("amountUsd", in.AmountUsd)
	if err != nil {
		errs.Add("amountUsd", kernel.FieldReason(err, "amountUsd"))
	} else if amount <= 0 {
		errs.Add("amountUsd", "must be a positive amount")
	}
	if !policy.ValidMCC(in.MCC) {
		errs.Add("mcc", `must be a four-digit merchant category code such as "5411"`)
	}
	merchant := strings.TrimSpace(in.MerchantName)
	if merchant == "" || utf8.RuneCountInString(merchant) > 200 {
		errs.Add("merchantName", "is required, at most 200 characters")
	}
	counterparty := ""
	if in.Counterparty != nil {
		if !core.IsEVMAddress(*in.Counterparty) {
			errs.Add("counterparty", "must be 0x followed by 40 hex digits")
		}
		counterparty = strings.ToLower(*in.Counterparty)
	}
	return card.Request{Amount: amount, MCC: in.MCC}, merchant, counterparty, errs.Err()
}

// Gated reports whether the policy gate applies to a card: every card of a tenant. Legacy
// cards without a tenant are never gated (docs/api.md Policies); this build issues none, and the
// rule stays explicit so a card imported without one is not evaluated against nothing.
func Gated(c card.Card) bool { return c.TenantID != "" }

// Authorize decides one authorization on a card, in docs/decisions/cards.md's order: the card's
// own rules (CARD_INACTIVE, MCC_BLOCKED, MCC_NOT_ALLOWED, PER_TXN_LIMIT, DAILY_CAP, WEEKLY_CAP,
// MONTHLY_CAP), then the spend guard (kernel.SpendGuard.Decide: agent confinement, the card's
// spend policies, the agent's budget for an agent's card), then the balance: a pending ledger
// transfer from the wallet's on-chain mirror (a funding-account card: the tenant's service
// balance) to the issuer's clearing account, which the ledger refuses when the balance less
// open holds does not cover it (INSUFFICIENT_SAFE_BALANCE). The card's row is locked for the
// whole decision, so concurrent authorizations on one card see each other's window spend; an
// approval consumes its windows at once. Every decision is recorded.
//
// The wallet's mirror is brought up to the chain only when it is short: a Safe card's hold that
// the mirror does not cover rolls the decision back (errMirrorShort), the mirror catches up,
// and the decision runs once more against it. Every other authorization pays no read for it.
func (s *Service) Authorize(ctx context.Context, p auth.Principal, cardID string, in AuthorizeInput) (card.Authorization, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeCardsManage); err != nil {
		return card.Authorization{}, err
	}
	req, merchant, counterparty, err := parseAuthorize(in)
	if err != nil {
		return card.Authorization{}, err
	}
	in2 := decideInput{cardID: strings.TrimSpace(cardID), req: req, merchant: merchant, counterparty: counterparty, catchUp: s.mirror != nil}
	a, err := s.decide(ctx, p, in2)
	var short *errMirrorShort
	if errors.As(err, &short) {
		// A catch-up that cannot reach the chain leaves the decision to the mirror as it stands.
		_ = s.mirror.CatchUpWalletMirror(ctx, short.c.TenantID, short.c.Environment, short.c.WalletID)
		in2.catchUp = false
		a, err = s.decide(ctx, p, in2)
	}
	return a, err
}

// decideInput is one authorization to decide; catchUp asks for errMirrorShort instead of an
// INSUFFICIENT_SAFE_BALANCE decline.
type decideInput struct {
	cardID, merchant, counterparty string
	req                            card.Request
	catchUp                        bool
}

// errMirrorShort rolls an authorization's unit back when a Safe card's mirror did not cover
// its hold and the mirror may still catch up with the chain.
type errMirrorShort struct{ c card.Card }

func (e *errMirrorShort) Error() string { return "the wallet's mirror does not cover the hold yet" }

// decide runs one authorization's unit of work: the card's row locked with what the decision
// reads beside it (its window spend; whether any policy is attached), the card's rules, the
// policy gate when a policy is attached, the hold, the windows and the record.
func (s *Service) decide(ctx context.Context, p auth.Principal, in decideInput) (card.Authorization, error) {
	var a card.Authorization
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		now := s.now()
		w := card.WindowsAt(now)
		d, err := tx.Cards().LockCardForDecision(ctx, p.TenantID, p.Environment, in.cardID, w)
		if err != nil {
			return err
		}
		c, spent := d.Card, d.Spent
		s.accountCards.note(c)
		a = card.Authorization{ID: authorizationID(ctx), TenantID: c.TenantID, Environment: c.Environment, CardID: c.ID,
			Amount: in.req.Amount, MCC: in.req.MCC, MerchantName: in.merchant, Counterparty: in.counterparty, Status: card.AuthApproved,
			Windows: w, CreatedAt: now, UpdatedAt: now}
		reason, charged := card.Decide(c, in.req, spent), false
		if reason == "" {
			if reason, charged, err = s.guardSpend(ctx, tx, p, c, &a, spent, d.PolicyAttached); err != nil {
				return err
			}
		}
		if reason == "" {
			if reason, err = s.hold(ctx, tx, c, &a, now, charged); err != nil {
				return err
			}
		}
		if reason == card.ReasonInsufficientSafe && in.catchUp && c.Funding != card.FundingAccount && c.WalletID != "" {
			return &errMirrorShort{c: c}
		}
		if reason != "" {
			a.Status, a.DeclineReason, a.HoldTransferID = card.AuthDeclined, reason, ""
			return saveAuthorization(ctx, tx, a, true)
		}
		// The approval, its windows' spend and its event go in one statement, the request's last
		// write: its failure fails the request whatever unit it runs in (Authorize's only caller,
		// the HTTP route, returns it), so the store may send it with the unit's next exchange.
		return tx.Cards().CreateSpendingAuthorization(ports.WithLastWrite(ctx), a, authorizationEvent(a))
	})
	return a, err
}

// guardSpend puts the authorization to the spend guard (kernel.SpendGuard.Decide), the one place
// its spend is decided: agent confinement (an agent key spends only its own agent's cards; a
// refusal fails the request), the spend policies of the card, its wallet and its agent (a deny,
// or a policy outage in enforce mode, declines), then the agent's budget for an agent's card
// (a decline; charged tells the caller to give it back when the balance then declines). The
// policy gate runs once, inside Decide, and only when a policy is attached to the card, its
// wallet or its agent (the card's lock read that). A pass lets the
// unit of work hold the card's source.
func (s *Service) guardSpend(ctx context.Context, tx txView, p auth.Principal, c card.Card, a *card.Authorization, spent card.Spend, policyAttached bool) (decline string, charged bool, err error) {
	checks := kernel.SpendChecks{Caps: func(ctx context.Context) error {
		if c.AgentID == "" || s.agentBudget == nil {
			return nil
		}
		reason, err := s.agentBudget.ConsumeAgentCardSpend(ctx, c.TenantID, c.Environment, c.AgentID, a.ID, a.Amount, a.CreatedAt)
		if err != nil || reason != "" {
			decline = reason
			return declined(err, reason)
		}
		charged = true
		return nil
	}}
	if Gated(c) && policyAttached {
		checks.Policy = func(ctx context.Context) (*core.Error, error) {
			res, err := s.policyGate.GateCardAuthorization(ctx, c, *a, spent)
			if err != nil {
				return nil, err
			}
			a.PolicyID, a.PolicyDecisionID, decline = res.PolicyID, res.DecisionID, res.Decline
			if res.Decline == "" {
				return nil, nil
			}
			return core.E(core.Code(res.Decline), "the card's spend policy declines this authorization"), nil
		}
	}
	src := spend.Source{Kind: spend.SourceCardFunding}
	if c.Funding != card.FundingAccount {
		src = spend.Source{Kind: spend.SourceWallet, WalletID: c.WalletID}
	}
	req := spend.Request{Principal: p, Source: src, AmountBaseUnits: a.Amount, Counterparty: a.Counterparty, Reference: a.ID}
	step, denied, err := s.guard.Decide(ctx, tx, req, checks)
	switch {
	case step == kernel.StepCaps && decline != "":
		return decline, false, nil
	case err != nil:
		return "", false, err
	case denied != nil:
		return decline, false, nil
	}
	return "", charged, nil
}

// errBudgetDeclined is the caps step's refusal of an agent card's authorization: the budget
// declined it (the reason is the decline recorded), which the authorization answers as a
// DECLINED decision rather than an error.
var errBudgetDeclined = errors.New("cards: the agent's budget declined the authorization")

// declined is the caps step's answer: the budget's store failure, or its decline as a refusal.
func declined(err error, reason string) error {
	if err != nil {
		return err
	}
	if reason != "" {
		return errBudgetDeclined
	}
	return nil
}

// hold opens the ledger hold in a savepoint, after the spend guard passed: a short balance
// rolls back only the hold and declines, giving the agent's budget back when the guard charged
// it (charged).
func (s *Service) hold(ctx context.Context, tx txView, c card.Card, a *card.Authorization, now time.Time, charged bool) (string, error) {
	var reason string
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		reason = ""
		source, insufficient := fundingSource(c)
		accs, err := tx.Ledger().OpenAccounts(ctx, now, source, ledger.CardAuthorized(c.Environment, kernel.ServiceAsset, c.TenantID, c.ID))
		if err != nil {
			return err
		}
		t, _, err := tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: holdReference(a.ID), Type: ledger.TypePending,
			Environment: c.Environment, Asset: kernel.ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, a.Amount),
			Metadata: map[string]string{"cardId": c.ID, "cardAuthorizationId": a.ID}}.MustValidate())
		if core.HasCode(err, core.CodeInsufficientFunds) {
			reason = insufficient
			return errRollback
		}
		if err != nil {
			return err
		}
		a.HoldTransferID = t.ID
		return nil
	})
	if err == errRollback {
		err = nil
		if charged {
			err = s.agentBudget.ReleaseAgentCardSpend(ctx, a.TenantID, a.ID)
		}
	}
	return reason, err
}

// fundingSource is the account a card's spend is held on, and the decline when it is short.
func fundingSource(c card.Card) (ledger.AccountSpec, string) {
	if c.Funding == card.FundingAccount {
		return ledger.TenantAvailable(c.Environment, kernel.ServiceAsset, c.TenantID), card.ReasonInsufficientFunds
	}
	return ledger.WalletOnchain(c.Environment, kernel.ServiceAsset, c.TenantID, c.WalletID), card.ReasonInsufficientSafe
}

// errRollback rolls a savepoint back without failing the enclosing unit of work.
var errRollback = core.E(core.CodeInsufficientFunds, "hold refused")

// CaptureInput is the body of POST /v1/sandbox/card-authorizations/{id}/capture.
type CaptureInput struct {
	AmountUsd *string
}

// Capture posts an APPROVED authorization's hold in whole (no amountUsd) or in part; the
// uncaptured rest is released and credited back to the authorization's own windows (the card's,
// and for an agent's card the agent's). A Safe
// card's captured spend is then settled on chain by the settlement job, enqueued in this unit
// of work; a funding-account card's is settled off chain by the issuer at once.
func (s *Service) Capture(ctx context.Context, p auth.Principal, id string, in CaptureInput) (card.Authorization, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeCardsManage); err != nil {
		return card.Authorization{}, err
	}
	var amount *int64
	if in.AmountUsd != nil {
		v, err := core.ParseUSD("amountUsd", *in.AmountUsd)
		if err != nil {
			return card.Authorization{}, err
		}
		amount = &v
	}
	return s.resolve(ctx, p, id, func(ctx context.Context, tx txView, c card.Card, a card.Authorization) (card.Authorization, error) {
		now := s.now()
		next, err := a.Capture(amount, now)
		if err != nil {
			return a, err
		}
		if _, _, err := tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "card-auth:" + a.ID + ":capture", Type: ledger.TypePostPending,
			Environment: c.Environment, PendingID: a.HoldTransferID, TargetHome: c.TenantID, Amount: next.CapturedAmount,
			Metadata: map[string]string{"cardId": c.ID, "cardAuthorizationId": a.ID}}.MustValidate()); err != nil {
			return a, err
		}
		if err := passToIssuer(ctx, tx, c, next, now); err != nil {
			return a, err
		}
		if rest := a.Amount - next.CapturedAmount; rest > 0 {
			if err := tx.Cards().AddWindowSpend(ctx, c.TenantID, c.ID, a.Windows, -rest); err != nil {
				return a, err
			}
			if c.AgentID != "" && s.agentBudget != nil {
				if err := s.agentBudget.AdjustAgentCardSpend(ctx, a.TenantID, a.ID, next.CapturedAmount); err != nil {
					return a, err
				}
			}
		}
		if c.Funding == card.FundingAccount {
			next.SettlementStatus = card.SettlementOffChain
			return next, s.settleOffChain(ctx, tx, c, next, now)
		}
		next.SettlementStatus = card.SettlementPending
		return next, s.jobs.Enqueue(ctx, SettleArgs{TenantID: a.TenantID, AuthorizationID: a.ID}, ports.JobOptions{MaxAttempts: settleMaxAttempts})
	})
}

// passToIssuer moves a capture from the card's authorized account to the issuer's clearing
// account, which the settlement (on chain, or the issuer's off chain) then pays out. The shared
// clearing account is touched once per capture, not once per authorization.
func passToIssuer(ctx context.Context, tx txView, c card.Card, a card.Authorization, now time.Time) error {
	accs, err := tx.Ledger().OpenAccounts(ctx, now, ledger.CardAuthorized(c.Environment, kernel.ServiceAsset, c.TenantID, c.ID),
		issuerClearingShare(c))
	if err != nil {
		return err
	}
	_, _, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "card-auth:" + a.ID + ":clear", Type: ledger.TypePosted,
		Environment: c.Environment, Asset: kernel.ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, a.CapturedAmount),
		Metadata: map[string]string{"cardId": c.ID, "cardAuthorizationId": a.ID}}.MustValidate())
	return err
}

// issuerClearingShare is the card tenant's share of its issuer's clearing account, where a
// capture leaves the money the settlement then pays out: both stay with the tenant's rows.
func issuerClearingShare(c card.Card) ledger.AccountSpec {
	return ledger.Share(ledger.IssuerClearing(c.Environment, kernel.ServiceAsset, c.Issuer), c.TenantID)
}

// issuerClearingOf is the clearing account the authorization's capture left its money in: the
// tenant's share, or the platform account proper for a capture booked before clearing was split
// per tenant, so a settlement in flight at the switch pays from where the money is.
func issuerClearingOf(ctx context.Context, tx txView, c card.Card, a card.Authorization) (ledger.AccountSpec, error) {
	share, platform := issuerClearingShare(c), ledger.IssuerClearing(c.Environment, kernel.ServiceAsset, c.Issuer)
	clear, err := tx.Ledger().TransferByReference(ctx, c.Environment, c.TenantID, "card-auth:"+a.ID+":clear")
	if core.HasCode(err, core.CodeTransferNotFound) {
		return share, nil
	}
	if err != nil {
		return share, err
	}
	acc, err := tx.Ledger().FindAccountByReference(ctx, c.Environment, kernel.ServiceAsset, c.TenantID, share.Reference)
	if core.HasCode(err, core.CodeAccountNotFound) {
		return platform, nil
	}
	if err != nil {
		return share, err
	}
	for _, p := range clear.Postings {
		if p.AccountID == acc.ID {
			return share, nil
		}
	}
	return platform, nil
}

// settleOffChain books the issuer's off-chain settlement of a funding-account card's capture:
// the issuer's clearing account pays the outside world.
func (s *Service) settleOffChain(ctx context.Context, tx txView, c card.Card, a card.Authorization, now time.Time) error {
	from, err := issuerClearingOf(ctx, tx, c, a)
	if err != nil {
		return err
	}
	accs, err := tx.Ledger().OpenAccounts(ctx, now, from,
		ledger.Share(ledger.World(c.Environment, kernel.ServiceAsset, "card_issuer"), c.TenantID))
	if err != nil {
		return err
	}
	_, _, err = tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "card-auth:" + a.ID + ":settle", Type: ledger.TypePosted,
		Environment: c.Environment, Asset: kernel.ServiceAsset, Postings: ledger.Move(accs[0].ID, accs[1].ID, a.CapturedAmount),
		Metadata: map[string]string{"cardId": c.ID, "cardAuthorizationId": a.ID}}.MustValidate())
	return err
}

// Reverse voids an APPROVED authorization's hold and credits its amount back to the windows
// it consumed (the authorization's own day, week and month, not today's).
func (s *Service) Reverse(ctx context.Context, p auth.Principal, id string) (card.Authorization, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeCardsManage); err != nil {
		return card.Authorization{}, err
	}
	return s.resolve(ctx, p, id, func(ctx context.Context, tx txView, c card.Card, a card.Authorization) (card.Authorization, error) {
		return s.release(ctx, tx, c, a, card.ReversalMerchant)
	})
}

// release reverses an APPROVED authorization for reason: it voids the hold, credits the card's
// windows the authorization consumed and gives the agent's budget back.
func (s *Service) release(ctx context.Context, tx txView, c card.Card, a card.Authorization, reason string) (card.Authorization, error) {
	now := s.now()
	next, err := a.Reverse(now, reason)
	if err != nil {
		return a, err
	}
	if _, _, err := tx.Ledger().Post(ctx, now, ledger.TransferSpec{Reference: "card-auth:" + a.ID + ":void", Type: ledger.TypeVoidPending,
		Environment: c.Environment, PendingID: a.HoldTransferID, TargetHome: c.TenantID,
		Metadata: map[string]string{"cardId": c.ID, "cardAuthorizationId": a.ID, "reversalReason": reason}}.MustValidate()); err != nil {
		return a, err
	}
	if err := tx.Cards().AddWindowSpend(ctx, c.TenantID, c.ID, a.Windows, -a.Amount); err != nil {
		return a, err
	}
	if c.AgentID != "" && s.agentBudget != nil {
		if err := s.agentBudget.ReleaseAgentCardSpend(ctx, a.TenantID, a.ID); err != nil {
			return a, err
		}
	}
	return next, nil
}

// expiryBatch bounds one expiry pass (the next pass carries on).
const expiryBatch = 200

// ExpireApprovals releases every authorization still APPROVED, never captured, past the
// authorization lifetime: its hold is voided and its budget credited back, and it ends REVERSED
// with reversalReason EXPIRED, as a card network lets an uncaptured authorization lapse. Each
// runs in its own unit of work under the card's lock, so a capture racing it either wins (the
// expiry then skips it) or meets a REVERSED authorization. It returns how many it released.
func (s *Service) ExpireApprovals(ctx context.Context) (int, error) {
	var open []card.Authorization
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		open, err = tx.Cards().OpenApprovals(ctx, s.now().Add(-s.lifetime), expiryBatch)
		return err
	})
	if err != nil {
		return 0, err
	}
	n := 0
	for _, found := range open {
		released := false
		err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
			released = false
			c, err := lockCardForHold(ctx, tx, found.TenantID, found.Environment, found.CardID)
			if err != nil {
				return err
			}
			a, err := tx.Cards().LockAuthorizationByID(ctx, found.TenantID, found.ID)
			if err != nil || a.Status != card.AuthApproved {
				return err
			}
			next, err := s.release(ctx, tx, c, a, card.ReversalExpired)
			if err != nil {
				return err
			}
			released = true
			return saveAuthorization(ctx, tx, next, false)
		})
		if err != nil {
			return n, fmt.Errorf("cards: expiring authorization %s: %w", found.ID, err)
		}
		if released {
			n++
		}
	}
	return n, nil
}

// lockCardForHold locks an authorization's card for a step that posts on its hold (a capture, a
// reversal, the expiry). A funding-account card's hold rows (its tenant's service balance, its
// authorized account) are locked before the card, the order a known card's authorization takes
// (its claim locks them, then its lock read the card); a Safe card's row comes first, as its
// authorizations take it. The card is read first, unlocked, to know which (docs/ledger.md,
// "Lock order of the card paths").
func lockCardForHold(ctx context.Context, tx txView, tenantID string, env core.Environment, cardID string) (card.Card, error) {
	c, err := tx.Cards().FindCard(ctx, tenantID, env, cardID)
	if err != nil {
		return c, err
	}
	if c.Funding != card.FundingAccount {
		return tx.Cards().LockCard(ctx, tenantID, env, cardID)
	}
	return tx.Cards().LockCardAfterHold(ctx, tenantID, env, cardID, []ledger.AccountSpec{
		ledger.TenantAvailable(c.Environment, kernel.ServiceAsset, c.TenantID),
		ledger.CardAuthorized(c.Environment, kernel.ServiceAsset, c.TenantID, c.ID)})
}

// resolve locks the authorization's card, then the authorization, applies step and saves it.
func (s *Service) resolve(ctx context.Context, p auth.Principal, id string,
	step func(ctx context.Context, tx txView, c card.Card, a card.Authorization) (card.Authorization, error)) (card.Authorization, error) {
	var out card.Authorization
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		found, err := tx.Cards().FindAuthorization(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		c, err := lockCardForHold(ctx, tx, p.TenantID, p.Environment, found.CardID)
		if err != nil {
			return err
		}
		a, err := tx.Cards().LockAuthorizationByID(ctx, found.TenantID, found.ID)
		if err != nil {
			return err
		}
		if out, err = step(ctx, tx, c, a); err != nil {
			return err
		}
		return saveAuthorization(ctx, tx, out, false)
	})
	return out, err
}
