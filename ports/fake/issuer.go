package fake

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// CardIssuer is an in-memory card issuer: one card per reference (a retried issuance returns
// the same card), a status per card, and ephemeral keys for known cards.
type CardIssuer struct {
	mu     sync.Mutex
	byRef  map[string]ports.IssuedCard
	active map[string]bool
}

var _ ports.CardIssuer = (*CardIssuer)(nil)

// Name is the issuer's name in ledger references.
func (i *CardIssuer) Name() string { return "fake" }

// IssueCard issues a card once per reference.
func (i *CardIssuer) IssueCard(_ context.Context, in ports.IssueCardInput) (ports.IssuedCard, error) {
	if in.Reference == "" {
		return ports.IssuedCard{}, fmt.Errorf("fake issuer: a card needs a reference")
	}
	i.mu.Lock()
	defer i.mu.Unlock()
	if i.byRef == nil {
		i.byRef, i.active = map[string]ports.IssuedCard{}, map[string]bool{}
	}
	if c, ok := i.byRef[in.Reference]; ok {
		return c, nil
	}
	c := ports.IssuedCard{IssuerCardID: "fic_" + core.RandomToken(8), Last4: fmt.Sprintf("%04d", len(i.byRef)%10_000)}
	if in.FundingAccount {
		c.FundingAccountID = "ffa_" + in.TenantID
	}
	i.byRef[in.Reference], i.active[c.IssuerCardID] = c, true
	return c, nil
}

// SetCardStatus records the card's status; an unknown card is an error.
func (i *CardIssuer) SetCardStatus(_ context.Context, issuerCardID string, active bool) error {
	i.mu.Lock()
	defer i.mu.Unlock()
	if _, ok := i.active[issuerCardID]; !ok {
		return fmt.Errorf("fake issuer: unknown card %s", issuerCardID)
	}
	i.active[issuerCardID] = active
	return nil
}

// CreateEphemeralKey mints a key for a known card.
func (i *CardIssuer) CreateEphemeralKey(_ context.Context, in ports.EphemeralKeyInput) (ports.EphemeralKey, error) {
	i.mu.Lock()
	defer i.mu.Unlock()
	if _, ok := i.active[in.IssuerCardID]; !ok {
		return ports.EphemeralKey{}, fmt.Errorf("fake issuer: unknown card %s", in.IssuerCardID)
	}
	return ports.EphemeralKey{ID: "eph_" + core.RandomToken(8), Secret: core.RandomToken(16), Platform: in.Platform,
		ExpiresAt: time.Now().UTC().Add(time.Hour)}, nil
}
