package ports

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/ledger"
)

// CardRepo stores cardholders, cards, authorizations and the per-card window accumulators.
// Authorizations on one card are decided under LockCard, so the windows a decision reads are
// the ones it updates.
type CardRepo interface {
	CreateCardholder(ctx context.Context, h card.Cardholder) error
	// FindCardholder: another tenant's or environment's cardholder is CARDHOLDER_NOT_FOUND.
	FindCardholder(ctx context.Context, tenantID string, env core.Environment, id string) (card.Cardholder, error)
	ListCardholders(ctx context.Context, tenantID string, env core.Environment, page Page) ([]card.Cardholder, int, error)

	CreateCard(ctx context.Context, c card.Card) error
	// FindCard: another tenant's or environment's card is CARD_NOT_FOUND.
	FindCard(ctx context.Context, tenantID string, env core.Environment, id string) (card.Card, error)
	// LockCard is FindCard that locks the card's row until the transaction ends.
	LockCard(ctx context.Context, tenantID string, env core.Environment, id string) (card.Card, error)
	// LockCardAfterHold is LockCard after locking the balance rows of the hold's accounts (in
	// account id order; an account not opened yet has none): a funding-account card's hold
	// rows come before its card, the order its authorization's claim takes (docs/ledger.md,
	// "Lock order of the card paths").
	LockCardAfterHold(ctx context.Context, tenantID string, env core.Environment, id string, hold []ledger.AccountSpec) (card.Card, error)
	// LockCardForDecision is LockCard that also reads, in the same statement, what an
	// authorization decides on beside the card: its spend in the windows w (read after the
	// lock is granted, so it includes every decision that held the lock before) and whether a
	// spend policy is attached to the card, its wallet or its agent.
	LockCardForDecision(ctx context.Context, tenantID string, env core.Environment, id string, w card.Windows) (CardDecisionRows, error)
	UpdateCard(ctx context.Context, c card.Card) error
	ListCards(ctx context.Context, tenantID string, env core.Environment, page Page) ([]card.Card, int, error)

	// WindowSpend is what the tenant's card consumed in the three windows (zero for a window
	// with no row).
	WindowSpend(ctx context.Context, tenantID, cardID string, w card.Windows) (card.Spend, error)
	// AddWindowSpend adds delta (negative to credit back) to each of the three windows.
	AddWindowSpend(ctx context.Context, tenantID, cardID string, w card.Windows, delta int64) error

	CreateAuthorization(ctx context.Context, a card.Authorization) error
	// CreateSpendingAuthorization creates an approved authorization, adds its amount to its
	// windows (a.Windows) and records announce (its event, as EventRepo.RecordEvent would) in
	// one statement. a must be an approval as decided (nothing captured, no decline or reversal
	// reason, no settlement, UpdatedAt its CreatedAt) and announce the approval's own: its
	// tenant, environment, resource and time (the statement writes them once, for both rows);
	// another is refused. Under
	// ports.WithLastWrite the store may hold the statement back until the transaction's next
	// exchange or its COMMIT, which its failure then fails.
	CreateSpendingAuthorization(ctx context.Context, a card.Authorization, announce event.Event) error
	// FindAuthorization: another tenant's or environment's is CARD_AUTHORIZATION_NOT_FOUND.
	FindAuthorization(ctx context.Context, tenantID string, env core.Environment, id string) (card.Authorization, error)
	// LockAuthorizationByID locks an authorization of the tenant by id, in any environment
	// (the settlement job, which carries the tenant so it asks one shard group).
	LockAuthorizationByID(ctx context.Context, tenantID, id string) (card.Authorization, error)
	UpdateAuthorization(ctx context.Context, a card.Authorization) error
	// OpenApprovals lists up to limit authorizations of every tenant still APPROVED and created
	// before createdBefore, oldest first (the expiry pass).
	OpenApprovals(ctx context.Context, createdBefore time.Time, limit int) ([]card.Authorization, error)
	// StaleSettlements lists up to limit authorizations whose on-chain settlement is PENDING or
	// SUBMITTED and was last updated before before, oldest first (the settlement sweep, across
	// tenants: it asks every shard at the sweep's pace).
	StaleSettlements(ctx context.Context, before time.Time, limit int) ([]TenantRow, error)
	// ListAuthorizations lists a tenant's card's authorizations, newest first.
	ListAuthorizations(ctx context.Context, tenantID, cardID string, page Page) ([]card.Authorization, int, error)
}

// CardIntent names a card decision's lock read before its unit runs (LedgerIntent.Card).
type CardIntent struct {
	TenantID, CardID string
	Windows          card.Windows
}

// CardDecisionRows are what LockCardForDecision reads.
type CardDecisionRows struct {
	Card           card.Card
	Spent          card.Spend
	PolicyAttached bool // an active policy attachment names the card, its wallet or its agent
}

// TenantRow names one row of a tenant-owned table found by a pass across tenants: the tenant
// routes every later statement about it to the tenant's shard group.
type TenantRow struct {
	TenantID string
	ID       string
}
