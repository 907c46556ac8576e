package fake

import (
	"context"
	"fmt"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// cardTables are the card capability's rows. Window spend is one row per card holding each
// period's current window and spend, as PostgreSQL's card_spend is (cardSpend).
type cardTables struct {
	holders        table[card.Cardholder]
	cards          table[card.Card]
	authorizations table[card.Authorization]
	spend          map[string]cardSpend // tenantID + "|" + cardID
}

// cardSpend is a card's spend row: per period (day, week, month) its window's key and spend.
type cardSpend struct {
	keys  [3]string
	spent [3]int64
}

func newCardTables() cardTables {
	return cardTables{holders: newTable[card.Cardholder](), cards: newTable[card.Card](),
		authorizations: newTable[card.Authorization](), spend: map[string]cardSpend{}}
}

func (c cardTables) clone() cardTables {
	return cardTables{holders: c.holders.clone(), cards: c.cards.clone(), authorizations: c.authorizations.clone(), spend: copyOf(c.spend)}
}

type cardRepo struct{ s *Store }

var _ ports.CardRepo = cardRepo{}

func (r cardRepo) t() *cardTables { return &r.s.state.cards }

func (r cardRepo) CreateCardholder(_ context.Context, h card.Cardholder) error {
	return r.t().holders.insert(h.ID, h)
}

func (r cardRepo) FindCardholder(_ context.Context, tenantID string, env core.Environment, id string) (card.Cardholder, error) {
	h, ok := r.t().holders.rows[id]
	if !ok || h.TenantID != tenantID || h.Environment != env {
		return card.Cardholder{}, core.NotFound(card.CodeCardholderNotFound, "cardholder "+id)
	}
	return h, nil
}

func (r cardRepo) ListCardholders(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]card.Cardholder, int, error) {
	rows := r.t().holders.filter(func(h card.Cardholder) bool { return h.TenantID == tenantID && h.Environment == env }, true)
	out, total := page(rows, p)
	return out, total, nil
}

func (r cardRepo) CreateCard(_ context.Context, c card.Card) error {
	return r.t().cards.insert(c.ID, c)
}

func (r cardRepo) FindCard(_ context.Context, tenantID string, env core.Environment, id string) (card.Card, error) {
	c, ok := r.t().cards.rows[id]
	if !ok || c.TenantID != tenantID || c.Environment != env {
		return card.Card{}, core.NotFound(card.CodeCardNotFound, "card "+id)
	}
	return c, nil
}

// LockCard is FindCard: units of work already run one at a time.
// LockCardAfterHold is LockCard: the fake has no row locks.
func (r cardRepo) LockCardAfterHold(ctx context.Context, tenantID string, env core.Environment, id string, _ []ledger.AccountSpec) (card.Card, error) {
	return r.LockCard(ctx, tenantID, env, id)
}

func (r cardRepo) LockCard(ctx context.Context, tenantID string, env core.Environment, id string) (card.Card, error) {
	return r.FindCard(ctx, tenantID, env, id)
}

// LockCardForDecision is LockCard with the windows' spend read beside it. Policies are not
// modelled here, so it reports a policy attached to every card: the use case then always asks
// its policy gate, and a test's gate decides.
func (r cardRepo) LockCardForDecision(ctx context.Context, tenantID string, env core.Environment, id string, w card.Windows) (ports.CardDecisionRows, error) {
	c, err := r.LockCard(ctx, tenantID, env, id)
	if err != nil {
		return ports.CardDecisionRows{}, err
	}
	spent, _ := r.WindowSpend(ctx, c.TenantID, c.ID, w)
	return ports.CardDecisionRows{Card: c, Spent: spent, PolicyAttached: true}, nil
}

func (r cardRepo) UpdateCard(_ context.Context, c card.Card) error {
	return r.t().cards.update(c.ID, c)
}

func (r cardRepo) ListCards(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]card.Card, int, error) {
	rows := r.t().cards.filter(func(c card.Card) bool { return c.TenantID == tenantID && c.Environment == env }, true)
	out, total := page(rows, p)
	return out, total, nil
}

// WindowSpend reads the card's spend row in w: a period whose window is before w's rolled
// over (nothing spent yet); a later one is the period an approval in w adds to.
func (r cardRepo) WindowSpend(_ context.Context, tenantID, cardID string, w card.Windows) (card.Spend, error) {
	row, keys := r.t().spend[tenantID+"|"+cardID], [3]string{w.Day, w.Week, w.Month}
	var got [3]int64
	for i, k := range keys {
		if row.keys[i] >= k {
			got[i] = row.spent[i]
		}
	}
	return card.Spend{Daily: got[0], Weekly: got[1], Monthly: got[2]}, nil
}

// AddWindowSpend debits as PostgreSQL's upsert does (a later window starts its period at the
// amount, the row's window or an earlier one adds to the row's) and credits only the periods
// still in the windows that consumed the amount.
func (r cardRepo) AddWindowSpend(_ context.Context, tenantID, cardID string, w card.Windows, delta int64) error {
	id := tenantID + "|" + cardID
	row, keys := r.t().spend[id], [3]string{w.Day, w.Week, w.Month}
	for i, k := range keys {
		switch {
		case delta < 0 && row.keys[i] != k:
		case delta >= 0 && k > row.keys[i]:
			row.keys[i], row.spent[i] = k, delta
		default:
			row.spent[i] += delta
		}
		if row.spent[i] < 0 {
			return fmt.Errorf("fake: card %s's spend below zero", cardID)
		}
	}
	r.t().spend[id] = row
	return nil
}

func (r cardRepo) CreateAuthorization(_ context.Context, a card.Authorization) error {
	return r.t().authorizations.insert(a.ID, a)
}

// CreateSpendingAuthorization is CreateAuthorization, AddWindowSpend and RecordEvent; like
// PostgreSQL's, it refuses an event that is not the approval's own.
func (r cardRepo) CreateSpendingAuthorization(ctx context.Context, a card.Authorization, announce event.Event) error {
	if announce.TenantID != a.TenantID || announce.Environment != a.Environment || announce.ResourceID != a.ID ||
		!announce.CreatedAt.Equal(a.CreatedAt) {
		return fmt.Errorf("fake: event %s is not the approval %s's own", announce.ID, a.ID)
	}
	if a.Status != card.AuthApproved || a.CapturedAmount != 0 || a.DeclineReason != "" || a.ReversalReason != "" ||
		a.SettlementStatus != card.SettlementNone || a.SettlementTxHash != "" || a.SettlementError != "" || !a.UpdatedAt.Equal(a.CreatedAt) {
		return fmt.Errorf("fake: authorization %s is not an approval as decided (%s)", a.ID, a.Status)
	}
	if err := r.CreateAuthorization(ctx, a); err != nil {
		return err
	}
	if err := r.AddWindowSpend(ctx, a.TenantID, a.CardID, a.Windows, a.Amount); err != nil {
		return err
	}
	_, err := eventRepo(r).RecordEvent(ctx, announce)
	return err
}

func (r cardRepo) FindAuthorization(_ context.Context, tenantID string, env core.Environment, id string) (card.Authorization, error) {
	a, ok := r.t().authorizations.rows[id]
	if !ok || a.TenantID != tenantID || a.Environment != env {
		return card.Authorization{}, core.NotFound(card.CodeAuthorizationNotFound, "card authorization "+id)
	}
	return a, nil
}

func (r cardRepo) LockAuthorizationByID(_ context.Context, tenantID, id string) (card.Authorization, error) {
	a, ok := r.t().authorizations.rows[id]
	if !ok || a.TenantID != tenantID {
		return card.Authorization{}, core.NotFound(card.CodeAuthorizationNotFound, "card authorization "+id)
	}
	return a, nil
}

func (r cardRepo) UpdateAuthorization(_ context.Context, a card.Authorization) error {
	return r.t().authorizations.update(a.ID, a)
}

func (r cardRepo) OpenApprovals(_ context.Context, createdBefore time.Time, limit int) ([]card.Authorization, error) {
	rows := r.t().authorizations.filter(func(a card.Authorization) bool {
		return a.Status == card.AuthApproved && a.CreatedAt.Before(createdBefore)
	}, false)
	sortByTime(rows, func(a card.Authorization) time.Time { return a.CreatedAt })
	out, _ := page(rows, ports.Page{Take: limit})
	return out, nil
}

func (r cardRepo) StaleSettlements(_ context.Context, before time.Time, limit int) ([]ports.TenantRow, error) {
	rows := r.t().authorizations.filter(func(a card.Authorization) bool {
		return (a.SettlementStatus == card.SettlementPending || a.SettlementStatus == card.SettlementSubmitted) && a.UpdatedAt.Before(before)
	}, false)
	sortByTime(rows, func(a card.Authorization) time.Time { return a.UpdatedAt })
	rows, _ = page(rows, ports.Page{Take: limit})
	out := make([]ports.TenantRow, len(rows))
	for i, a := range rows {
		out[i] = ports.TenantRow{TenantID: a.TenantID, ID: a.ID}
	}
	return out, nil
}

func (r cardRepo) ListAuthorizations(_ context.Context, tenantID, cardID string, p ports.Page) ([]card.Authorization, int, error) {
	rows := r.t().authorizations.filter(func(a card.Authorization) bool { return a.TenantID == tenantID && a.CardID == cardID }, true)
	out, total := page(rows, p)
	return out, total, nil
}

// Card returns a stored card by id, for assertions.
func (s *Store) Card(id string) (card.Card, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.state.cards.cards.rows[id]
	return c, ok
}

// CardAuthorizations returns every stored authorization of a card, oldest first.
func (s *Store) CardAuthorizations(cardID string) []card.Authorization {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.state.cards.authorizations.filter(func(a card.Authorization) bool { return a.CardID == cardID }, false)
}
