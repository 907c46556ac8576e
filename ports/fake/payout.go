package fake

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Payout is an in-memory payout provider. Submit records a payout once per idempotency key
// (a retry answers the same reference) and reports SUBMITTED; each Poll advances the payout
// one step of its script and never past the last, reporting Final on the last. Script decides
// the steps from the request (nil: PENDING then SUCCEEDED, the mock provider's "00" script).
// A script starting with DESTINATION_REVOKED refuses the payout at submission, recording
// nothing, as the mock does for its "09" amounts.
type Payout struct {
	ProviderName string
	Script       func(r ports.PayoutRequest) []ports.PayoutState

	mu       sync.Mutex
	byKey    map[string]string // idempotency key -> reference
	payouts  map[string]*payoutRecord
	requests []ports.PayoutRequest
}

type payoutRecord struct {
	script []ports.PayoutState
	step   int
}

var _ ports.PayoutProvider = (*Payout)(nil)

// NewPayout returns a provider named name with the default script.
func NewPayout(name string) *Payout { return &Payout{ProviderName: name} }

// Name is the provider id.
func (p *Payout) Name() string { return p.ProviderName }

// Submit records the payout once per key.
func (p *Payout) Submit(_ context.Context, r ports.PayoutRequest) (ports.PayoutStatus, error) {
	if r.IdempotencyKey == "" || r.AmountBaseUnits <= 0 {
		return ports.PayoutStatus{}, errors.New("fake payout: a payout needs an idempotency key and a positive amount")
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byKey == nil {
		p.byKey, p.payouts = map[string]string{}, map[string]*payoutRecord{}
	}
	p.requests = append(p.requests, r)
	if ref, ok := p.byKey[r.IdempotencyKey]; ok {
		return ports.PayoutStatus{Reference: ref, State: ports.PayoutSubmitted}, nil
	}
	script := []ports.PayoutState{ports.PayoutPending, ports.PayoutSucceeded}
	if p.Script != nil {
		script = p.Script(r)
	}
	if len(script) > 0 && script[0] == ports.PayoutDestinationRevoked {
		return ports.PayoutStatus{State: ports.PayoutDestinationRevoked}, nil
	}
	if len(script) == 0 {
		panic("fake payout: a script needs at least one state")
	}
	ref := fmt.Sprintf("%s_%s", p.ProviderName, core.RandomToken(12))
	p.byKey[r.IdempotencyKey] = ref
	p.payouts[ref] = &payoutRecord{script: script}
	return ports.PayoutStatus{Reference: ref, State: ports.PayoutSubmitted}, nil
}

// Poll advances the payout one scripted step and reports it.
func (p *Payout) Poll(_ context.Context, reference string) (ports.PayoutStatus, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	rec, ok := p.payouts[reference]
	if !ok {
		return ports.PayoutStatus{}, core.E(core.CodeValidationFailed, "unknown %s payout reference", p.ProviderName)
	}
	if rec.step < len(rec.script) {
		rec.step++
	}
	return ports.PayoutStatus{Reference: reference, State: rec.script[rec.step-1], Final: rec.step == len(rec.script)}, nil
}

// Requests returns every Submit the provider received, retries included.
func (p *Payout) Requests() []ports.PayoutRequest {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]ports.PayoutRequest(nil), p.requests...)
}
