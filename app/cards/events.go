package cards

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/event"
)

// saveAuthorization writes an authorization and, in the same unit of work, the event of its
// status: card_authorization.approved or .declined when decided, .captured, .reversed.
func saveAuthorization(ctx context.Context, tx txView, a card.Authorization, create bool) error {
	write := tx.Cards().UpdateAuthorization
	if create {
		write = tx.Cards().CreateAuthorization
	}
	if err := write(ctx, a); err != nil {
		return err
	}
	return announceAuthorization(ctx, tx, a)
}

// announceAuthorization records the event of an authorization's new state, in the unit of work
// that wrote it.
func announceAuthorization(ctx context.Context, tx txView, a card.Authorization) error {
	_, err := tx.Events().RecordEvent(ctx, authorizationEvent(a))
	return err
}

// authorizationEvent is the event of an authorization's status: card_authorization.approved,
// .declined, .captured, .reversed.
func authorizationEvent(a card.Authorization) event.Event {
	extra := map[string]any{"cardId": a.CardID}
	if a.DeclineReason != "" {
		extra["declineReason"] = a.DeclineReason
	}
	if a.ReversalReason != "" {
		extra["reversalReason"] = a.ReversalReason
	}
	if a.SettlementStatus != card.SettlementNone {
		extra["settlementStatus"] = string(a.SettlementStatus)
	}
	return kernel.StatusEvent(a.TenantID, a.Environment, "card_authorization", a.ID, string(a.Status), a.Amount, a.UpdatedAt, extra)
}

// recordSettlementEvent announces a captured authorization's on-chain settlement step
// (card_authorization.settlement_submitted, .settlement_confirmed, .settlement_failed) in the
// unit of work that records it. The event stays in the card_authorization family, on the
// authorization's id: data.status is the authorization's (CAPTURED), data.settlementStatus the
// step. PENDING is not announced: the captured event already carries it.
func recordSettlementEvent(ctx context.Context, tx txView, a card.Authorization) error {
	if a.SettlementStatus == card.SettlementPending || a.SettlementStatus == card.SettlementNone {
		return nil
	}
	extra := map[string]any{"status": string(a.Status), "cardId": a.CardID, "settlementStatus": string(a.SettlementStatus)}
	if a.SettlementTxHash != "" {
		extra["transactionHash"] = a.SettlementTxHash
	}
	if a.SettlementError != "" {
		extra["settlementError"] = a.SettlementError
	}
	return kernel.RecordEvent(ctx, tx, a.TenantID, a.Environment, "card_authorization", a.ID, "SETTLEMENT_"+string(a.SettlementStatus),
		a.CapturedAmount, a.UpdatedAt, extra)
}

// Card events: card.issued, card.frozen, card.unfrozen (status changes) and
// card.limits_updated (every change of its limits).
const (
	cardIssued   = "ISSUED"
	cardFrozen   = "FROZEN"
	cardUnfrozen = "UNFROZEN"
	cardLimits   = "LIMITS_UPDATED"
)

// recordCardEvent writes a card's event in the unit of work that changed it. data.status is
// the card's status (active, inactive).
func recordCardEvent(ctx context.Context, tx txView, c card.Card, what string) error {
	extra := map[string]any{"status": string(c.Status), "funding": string(c.Funding), "last4": c.Last4}
	for k, v := range map[string]string{"walletId": c.WalletID, "agentId": c.AgentID, "cardholderId": c.CardholderID} {
		if v != "" {
			extra[k] = v
		}
	}
	if what == cardLimits {
		l := c.Limits
		extra["limits"] = map[string]any{"perTransactionUsd": kernel.USDOrNil(l.PerTransaction), "dailyUsd": kernel.USDOrNil(l.Daily),
			"weeklyUsd": kernel.USDOrNil(l.Weekly), "monthlyUsd": kernel.USDOrNil(l.Monthly),
			"blockedMcc": nonNil(l.BlockedMCC), "allowedMcc": nonNil(l.AllowedMCC)}
		return kernel.RecordChangeEvent(ctx, tx, c.TenantID, c.Environment, "card", c.ID, what, string(c.Status), c.UpdatedAt, extra)
	}
	return kernel.RecordEvent(ctx, tx, c.TenantID, c.Environment, "card", c.ID, what, 0, c.UpdatedAt, extra)
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
