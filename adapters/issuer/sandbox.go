// Package issuer holds the card issuer adapters. Sandbox behaves like a real issuer without a
// network: its own card ids, last four digits, statuses, funding card accounts and ephemeral
// keys.
package issuer

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Sandbox is the sandbox issuer. Card ids and last4 derive from the service's reference, so a
// retried issuance (or another replica) answers the same card; statuses are kept in memory.
type Sandbox struct {
	mu       sync.Mutex
	statuses map[string]bool
	now      func() time.Time
}

var _ ports.CardIssuer = (*Sandbox)(nil)

// NewSandbox returns a sandbox issuer.
func NewSandbox() *Sandbox {
	return &Sandbox{statuses: map[string]bool{}, now: time.Now}
}

// Name is the issuer's ledger name.
func (s *Sandbox) Name() string { return "sandbox" }

// IssueCard issues (or returns the already issued) card of in.Reference.
func (s *Sandbox) IssueCard(_ context.Context, in ports.IssueCardInput) (ports.IssuedCard, error) {
	if strings.TrimSpace(in.Reference) == "" {
		return ports.IssuedCard{}, core.E(core.CodeInternal, "sandbox issuer: a card needs a reference")
	}
	sum := sha256.Sum256([]byte("sandbox-issuer:card:" + in.Reference))
	out := ports.IssuedCard{
		IssuerCardID: "ic_sbx_" + hex.EncodeToString(sum[:12]),
		Last4:        fmt.Sprintf("%04d", (uint32(sum[12])<<8|uint32(sum[13]))%10000),
	}
	if in.FundingAccount {
		acct := sha256.Sum256([]byte("sandbox-issuer:funding-account:" + in.TenantID))
		out.FundingAccountID = "fca_sbx_" + hex.EncodeToString(acct[:12])
	}
	s.mu.Lock()
	if _, ok := s.statuses[out.IssuerCardID]; !ok {
		s.statuses[out.IssuerCardID] = true
	}
	s.mu.Unlock()
	return out, nil
}

// SetCardStatus records the card's status.
func (s *Sandbox) SetCardStatus(_ context.Context, issuerCardID string, active bool) error {
	if !strings.HasPrefix(issuerCardID, "ic_sbx_") {
		return core.E(core.CodeProviderUnavailable, "sandbox issuer: unknown card %s", issuerCardID)
	}
	s.mu.Lock()
	s.statuses[issuerCardID] = active
	s.mu.Unlock()
	return nil
}

// Active reports the status the issuer holds (tests).
func (s *Sandbox) Active(issuerCardID string) (active, known bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	active, known = s.statuses[issuerCardID]
	return active, known
}

// CreateEphemeralKey mints a random key valid for ten minutes.
func (s *Sandbox) CreateEphemeralKey(_ context.Context, in ports.EphemeralKeyInput) (ports.EphemeralKey, error) {
	var id, secret [16]byte
	if _, err := rand.Read(id[:]); err != nil {
		return ports.EphemeralKey{}, err
	}
	if _, err := rand.Read(secret[:]); err != nil {
		return ports.EphemeralKey{}, err
	}
	return ports.EphemeralKey{ID: "ephkey_sbx_" + hex.EncodeToString(id[:]), Secret: "ek_sbx_" + hex.EncodeToString(secret[:]),
		Platform: in.Platform, ExpiresAt: s.now().UTC().Add(10 * time.Minute).Truncate(time.Second)}, nil
}
