package cards

import (
	"context"
	"strings"
	"sync"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// authorizationIDAnswer is the prepared answer that holds the authorization's id
// (PrepareAuthorize), so the hold's reference the claim looked up is the one the hold records.
const authorizationIDAnswer = "cards:authorization-id"

// PrepareAuthorize runs before an authorization's unit of work, outside any transaction. When
// the card is known to draw on its tenant's service balance (a funding-account card this
// process has decided on before), it picks the authorization's id and names the rows the hold
// will lock (kernel.ExpectLedger): the tenant's service balance, the card's authorized account
// and the hold's reference, then the card itself with the windows of now. The unit's claim of
// the Idempotency-Key then locks and reads them in its own statement (the card after the
// balance rows), so neither the hold nor the card's lock read sends a statement of its own
// (docs/performance.md); a decision made in other windows (a period rolled over meanwhile)
// reads the card itself. A card
// not known yet, a Safe card (whose hold may make way for the mirror's catch-up) and a caller the
// route will refuse get nothing named; an authorization that declines only locked its rows early.
func (s *Service) PrepareAuthorize(ctx context.Context, p auth.Principal, cardID string) {
	if kernel.RequireSandboxScope(p, "", auth.ScopeCardsManage) != nil {
		return
	}
	cardID = strings.TrimSpace(cardID)
	if !s.accountCards.has(cardKey{tenantID: p.TenantID, env: p.Environment, cardID: cardID}) {
		return
	}
	id := core.NewID(core.PrefixCardAuth)
	kernel.Remember(ctx, authorizationIDAnswer, id)
	kernel.ExpectLedger(ctx, ports.LedgerIntent{Environment: p.Environment, Accounts: []ledger.AccountSpec{
		ledger.TenantAvailable(p.Environment, kernel.ServiceAsset, p.TenantID),
		ledger.CardAuthorized(p.Environment, kernel.ServiceAsset, p.TenantID, cardID)},
		References: []string{holdReference(id)},
		Card:       ports.CardIntent{TenantID: p.TenantID, CardID: cardID, Windows: card.WindowsAt(s.now())}})
}

// authorizationID is the prepared id of the authorization, or a new one.
func authorizationID(ctx context.Context) string {
	if id, ok := kernel.Recall[string](ctx, authorizationIDAnswer); ok {
		return id
	}
	return core.NewID(core.PrefixCardAuth)
}

// holdReference is the ledger reference of an authorization's hold.
func holdReference(authorizationID string) string { return "card-auth:" + authorizationID + ":hold" }

// accountCardsBound bounds the cards remembered; past it the set starts again empty (a card
// forgotten only costs its next authorization the hold's own locking read).
const accountCardsBound = 1 << 16

// cardKey names a card as its tenant's caller names it.
type cardKey struct {
	tenantID string
	env      core.Environment
	cardID   string
}

// accountCards remembers the funding-account cards this process has read. A card's tenant,
// environment and funding never change once issued, so an entry cannot go stale; one that is
// wrong (a card whose issue was rolled back) only makes a request lock its rows early.
type accountCards struct {
	mu  sync.Mutex
	set map[cardKey]struct{}
}

// note remembers c when it draws on its tenant's service balance.
func (a *accountCards) note(c card.Card) {
	if c.Funding != card.FundingAccount || c.TenantID == "" {
		return
	}
	k := cardKey{tenantID: c.TenantID, env: c.Environment, cardID: c.ID}
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, ok := a.set[k]; ok {
		return
	}
	if a.set == nil || len(a.set) >= accountCardsBound {
		a.set = make(map[cardKey]struct{})
	}
	a.set[k] = struct{}{}
}

// has reports whether k is a funding-account card already read.
func (a *accountCards) has(k cardKey) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok := a.set[k]
	return ok
}
