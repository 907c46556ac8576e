package cards

import (
	"context"
	"regexp"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// IssueInput is the body of POST /v1/wallets/{walletId}/cards: optional limits and agentId.
type IssueInput struct {
	Limits  card.LimitsPatch
	AgentID *string
}

// IssueRead is what issuing reads before its unit of work: the validated limits and the
// wallet whose Safe has the card spend module enabled (a chain read).
type IssueRead struct {
	tenantID string
	env      core.Environment
	wallet   wallet.Wallet
	limits   card.Limits
	agentID  string
	cardID   string
	issued   ports.IssuedCard
}

// ReadIssue validates an issue-from-wallet request and checks on chain that the wallet's Safe
// has the card spend module enabled. It runs outside any unit of work.
//
// agentId: binding a card to an agent is done by the agents capability (IssueAgentCard);
// through this route only an absent or null agentId is accepted, anything else is
// VALIDATION_FAILED naming agentId.
func (s *Service) ReadIssue(ctx context.Context, p auth.Principal, walletID string, in IssueInput) (IssueRead, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeCardsIssue); err != nil {
		return IssueRead{}, err
	}
	if in.AgentID != nil {
		return IssueRead{}, core.Invalid("agentId", "cards are bound to an agent through POST /v1/agents/{id}/cards; omit agentId here")
	}
	return s.readIssue(ctx, p, walletID, in.Limits, "")
}

func (s *Service) readIssue(ctx context.Context, p auth.Principal, walletID string, patch card.LimitsPatch, agentID string) (IssueRead, error) {
	if err := kernel.RequireSandbox(p, "card issuance is sandbox only"); err != nil {
		return IssueRead{}, err
	}
	limits, err := card.Limits{}.Apply(patch)
	if err != nil {
		return IssueRead{}, err
	}
	var w wallet.Wallet
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		w, err = tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, strings.TrimSpace(walletID))
		if err != nil {
			return err
		}
		// A card spends its wallet's Safe: an agent issues cards only on its own wallet.
		return kernel.RequireAgentWallet(ctx, tx.Agents(), p, w.ID)
	})
	if err != nil {
		return IssueRead{}, err
	}
	// An agent's Safe spends within the agent's caps: a card on it is the agent's card, bound
	// to the agent so its authorizations consume the agent's windows.
	if w.Purpose == wallet.PurposeAgent && agentID == "" {
		return IssueRead{}, core.E(core.CodeInvalidState,
			"wallet %s is an agent's wallet: issue its card with POST /v1/agents/{id}/cards so the agent's caps apply", w.ID).
			WithDetails(map[string]any{"walletId": w.ID, "walletPurpose": string(w.Purpose)})
	}
	if w.Status != wallet.StatusDeployed {
		return IssueRead{}, core.E(card.CodeWalletNotDeployed, "wallet %s is %s: cards are issued from a DEPLOYED wallet", w.ID, w.Status).
			WithDetails(map[string]any{"walletId": w.ID, "walletStatus": string(w.Status)})
	}
	module, err := s.module(p.Environment)
	if err != nil {
		return IssueRead{}, err
	}
	enabled, err := module.CardModuleEnabled(ctx, common.HexToAddress(w.Address))
	if err != nil {
		return IssueRead{}, core.E(core.CodeChainUnavailable, "could not read the card spend module of wallet %s: %v", w.ID, err).Transient(core.RetryDependency)
	}
	if !enabled {
		return IssueRead{}, core.E(card.CodeModuleNotEnabled,
			"the Safe of wallet %s does not have the card spend module enabled (wallets created before cards existed); create a new wallet for cards", w.ID).
			WithDetails(map[string]any{"walletId": w.ID, "moduleAddress": module.CardModuleAddress().Hex()})
	}
	read := IssueRead{tenantID: p.TenantID, env: p.Environment, wallet: w, limits: limits, agentID: agentID, cardID: core.NewID(core.PrefixCard)}
	read.issued, err = s.issueAtIssuer(ctx, ports.IssueCardInput{Reference: read.cardID, TenantID: p.TenantID,
		SafeAddress: common.HexToAddress(w.Address).Hex()})
	return read, err
}

// issueAtIssuer asks the issuer for the card before the unit of work that records it, outside
// any transaction (docs/decisions/reliability.md), with the card's id as the issuer's idempotency reference.
// docs/api.md answers the issuer card id and last4 in the issue response, so the call cannot wait
// for a job after commit; a unit that then fails leaves an issuer card with no record here,
// which never authorizes (the service decides every authorization, docs/reliability.md).
func (s *Service) issueAtIssuer(ctx context.Context, in ports.IssueCardInput) (ports.IssuedCard, error) {
	issued, err := s.issuer.IssueCard(ctx, in)
	if err != nil {
		return ports.IssuedCard{}, err
	}
	if issued.IssuerCardID == "" || issued.Last4 == "" {
		return ports.IssuedCard{}, core.E(core.CodeProviderUnavailable, "the card issuer answered without a card id")
	}
	return issued, nil
}

// Issue records the card ReadIssue prepared, issued at the issuer under the card's id.
func (s *Service) Issue(ctx context.Context, p auth.Principal, read IssueRead) (card.Card, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeCardsIssue); err != nil {
		return card.Card{}, err
	}
	if read.tenantID != p.TenantID || read.env != p.Environment {
		return card.Card{}, core.E(core.CodeInternal, "issue read of another principal")
	}
	now := s.now()
	c := card.Card{ID: read.cardID, TenantID: p.TenantID, Environment: p.Environment, Funding: card.FundingSafe,
		WalletID: read.wallet.ID, SafeAddress: common.HexToAddress(read.wallet.Address).Hex(), AgentID: read.agentID,
		Issuer: s.issuer.Name(), Status: card.StatusActive, Limits: read.limits, CreatedAt: now, UpdatedAt: now}
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		if _, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, read.wallet.ID); err != nil {
			return err
		}
		c.IssuerCardID, c.Last4 = read.issued.IssuerCardID, read.issued.Last4
		if err := tx.Cards().CreateCard(ctx, c); err != nil {
			return err
		}
		return recordCardEvent(ctx, tx, c, cardIssued)
	})
	return c, err
}

// Chains of a cardholder card's crypto account, and the account types (docs/api.md Cards).
var (
	cardChains       = map[string]bool{"solana": true, "world_chain": true, "base": true}
	cryptoTypes      = map[string]bool{"standard": true, "bridge_wallet": true}
	solanaAddress    = regexp.MustCompile(`^[1-9A-HJ-NP-Za-km-z]{32,44}$`)
	maxCardholderLen = 200
)

// CardholderCardInput is the body of POST /v1/cards.
type CardholderCardInput struct {
	CardholderID         string
	Chain                *string
	CryptoAccountAddress *string
	CryptoAccountType    *string
}

// CardholderCardRead is a cardholder card validated and issued at the issuer, ready to be
// recorded by RecordCardholderCard.
type CardholderCardRead struct {
	card card.Card
}

// IssueCardholderCard is ReadCardholderCard and RecordCardholderCard in one call, outside any
// unit of work.
func (s *Service) IssueCardholderCard(ctx context.Context, p auth.Principal, in CardholderCardInput) (card.Card, error) {
	read, err := s.ReadCardholderCard(ctx, p, in)
	if err != nil {
		return card.Card{}, err
	}
	return s.RecordCardholderCard(ctx, p, read)
}

// ReadCardholderCard validates a card for a cardholder and issues it at the issuer, outside any
// unit of work (issueAtIssuer says why). It has no Safe: it draws on the tenant's funding card
// account, which is the tenant's service balance, and the issuer settles it off chain
// (docs/cards.md). chain and cryptoAccountAddress describe the cardholder's crypto account the
// issuer records; the address is checked for the chain (0x + 40 hex on base and world_chain,
// base58 on solana) and needs the chain.
func (s *Service) ReadCardholderCard(ctx context.Context, p auth.Principal, in CardholderCardInput) (CardholderCardRead, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeCardsIssue); err != nil {
		return CardholderCardRead{}, err
	}
	if err := kernel.RequireSandbox(p, "card issuance is sandbox only"); err != nil {
		return CardholderCardRead{}, err
	}
	errs := core.FieldErrors{}
	holderID := strings.TrimSpace(in.CardholderID)
	if holderID == "" {
		errs.Add("cardholderId", "is required")
	}
	chain, addr, typ := deref(in.Chain), deref(in.CryptoAccountAddress), "standard"
	if in.Chain != nil && !cardChains[chain] {
		errs.Add("chain", "must be one of solana, world_chain, base")
	}
	if in.CryptoAccountType != nil {
		typ = *in.CryptoAccountType
		if !cryptoTypes[typ] {
			errs.Add("cryptoAccountType", "must be standard or bridge_wallet")
		}
	}
	if in.CryptoAccountAddress != nil {
		switch {
		case in.Chain == nil:
			errs.Add("chain", "is required with cryptoAccountAddress")
		case chain == "solana" && !solanaAddress.MatchString(addr):
			errs.Add("cryptoAccountAddress", "must be a base58 Solana address")
		case (chain == "base" || chain == "world_chain") && !core.IsEVMAddress(addr):
			errs.Add("cryptoAccountAddress", "must be 0x followed by 40 hex digits")
		}
		if chain == "base" || chain == "world_chain" {
			addr = common.HexToAddress(addr).Hex()
		}
	}
	if err := errs.Err(); err != nil {
		return CardholderCardRead{}, err
	}
	now := s.now()
	c := card.Card{ID: core.NewID(core.PrefixCard), TenantID: p.TenantID, Environment: p.Environment, Funding: card.FundingAccount,
		CardholderID: holderID, Issuer: s.issuer.Name(), Chain: chain, CryptoAccountAddress: addr, Status: card.StatusActive,
		Limits: card.Limits{BlockedMCC: []string{}}, CreatedAt: now, UpdatedAt: now}
	if in.Chain != nil || in.CryptoAccountAddress != nil || in.CryptoAccountType != nil {
		c.CryptoAccountType = typ
	}
	var holder card.Cardholder
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if holder, err = tx.Cards().FindCardholder(ctx, p.TenantID, p.Environment, holderID); err != nil {
			return err
		}
		// A funding-account card spends the tenant's service balance: an agent key may not
		// issue one (the spend guard's confinement).
		return kernel.ConfineSpend(ctx, tx, spend.Request{Principal: p, Source: spend.Source{Kind: spend.SourceCardFunding}})
	})
	if err != nil {
		return CardholderCardRead{}, err
	}
	issued, err := s.issueAtIssuer(ctx, ports.IssueCardInput{Reference: c.ID, TenantID: p.TenantID, FundingAccount: true, CardholderName: holder.Name})
	if err != nil {
		return CardholderCardRead{}, err
	}
	c.IssuerCardID, c.Last4, c.FundingAccountID = issued.IssuerCardID, issued.Last4, issued.FundingAccountID
	return CardholderCardRead{card: c}, nil
}

// RecordCardholderCard records the card ReadCardholderCard issued, inside the caller's unit of
// work when there is one. The cardholder is looked up again so a card never outlives a check.
func (s *Service) RecordCardholderCard(ctx context.Context, p auth.Principal, read CardholderCardRead) (card.Card, error) {
	c := read.card
	if c.ID == "" || c.TenantID != p.TenantID || c.Environment != p.Environment {
		return card.Card{}, core.E(core.CodeInternal, "cardholder card read of another principal")
	}
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		if _, err := tx.Cards().FindCardholder(ctx, p.TenantID, p.Environment, c.CardholderID); err != nil {
			return err
		}
		if err := tx.Cards().CreateCard(ctx, c); err != nil {
			return err
		}
		return recordCardEvent(ctx, tx, c, cardIssued)
	})
	return c, err
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return strings.TrimSpace(*s)
}
