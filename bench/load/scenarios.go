package main

import (
	"context"
	"fmt"
	"net/http"
	"sync/atomic"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// scenario is one measured workload. Targets builds the vegeta Targeter once, before the clock
// starts (it may do setup requests); the Targeter is then called concurrently by the workers,
// so it must be safe for that. A new capability adds its scenarios to allScenarios.
type scenario struct {
	Name     string
	Measures string
	Targets  func(ctx context.Context, e *env) (vegeta.Targeter, error)
	// Rate, when set, is the scenario's fixed arrival rate (requests per second) unless -rate
	// sets one for every scenario: latency at a given load rather than at saturation.
	Rate int
	// Workers, when set, is the scenario's concurrency unless -workers is given.
	Workers int
	// Money marks the scenarios read as ratios to the ledger pipeline (pipeline.go).
	Money bool
}

var allScenarios = []scenario{
	{"capabilities", "GET /v1/capabilities without credentials: HTTP stack and middleware, no database", capabilities, 0, 0, false},
	{"authenticated-read", "GET /v1/tenants/current with the root key: key lookup and hash check, one read", authenticatedRead, 0, 0, false},
	{"idempotent-post-fresh", "POST /v1/tenants/members, a new Idempotency-Key each time: full write path with the idempotency record in the same transaction", idempotentPostFresh, 0, 0, false},
	{"idempotent-post-replay", "the same POST with the same Idempotency-Key after a first success: the replay path", idempotentPostReplay, 0, 0, false},
	{"idempotent-post-fresh-500", "idempotent-post-fresh at a fixed 500 requests/s (open loop: workers are added when responses lag): latency below saturation", idempotentPostFresh, 500, 0, false},
	{"deposits", "POST /v1/sandbox/balance-deposits, 32 tenants each with its own key, a new Idempotency-Key each time, 64 workers: the money path as a partner loads it", deposits, 0, moneyWorkers, true},
	{"card-authorizations", "POST /v1/sandbox/cards/{id}/authorizations of 0.01 USD on 256 cardholder cards of 32 tenants (their service balances funded), a new Idempotency-Key each time, 64 workers", cardAuthorizations, 0, moneyWorkers, true},
}

func (e *env) keyHeader() http.Header {
	return http.Header{"X-Service-Api-Key": {e.RootKey}, "Content-Type": {"application/json"}}
}

// membersHeader authenticates the invite scenarios (env.MembersKey).
func (e *env) membersHeader() http.Header {
	return http.Header{"X-Service-Api-Key": {e.MembersKey}, "Content-Type": {"application/json"}}
}

func capabilities(_ context.Context, e *env) (vegeta.Targeter, error) {
	return vegeta.NewStaticTargeter(vegeta.Target{Method: http.MethodGet, URL: e.BaseURL + "/v1/capabilities"}), nil
}

func authenticatedRead(_ context.Context, e *env) (vegeta.Targeter, error) {
	return vegeta.NewStaticTargeter(vegeta.Target{Method: http.MethodGet, URL: e.BaseURL + "/v1/tenants/current", Header: e.keyHeader()}), nil
}

// freshSeries numbers the fresh-POST scenarios of a run, so two of them never send the same
// Idempotency-Key (which would make the second a replay).
var freshSeries atomic.Uint64

func idempotentPostFresh(_ context.Context, e *env) (vegeta.Targeter, error) {
	var n atomic.Uint64
	series := freshSeries.Add(1)
	url := e.BaseURL + "/v1/tenants/members"
	return func(t *vegeta.Target) error {
		if t == nil {
			return vegeta.ErrNilTarget
		}
		i := n.Add(1)
		h := e.membersHeader()
		h.Set("Idempotency-Key", fmt.Sprintf("bench-%s-%d-%d", e.RunID, series, i))
		*t = vegeta.Target{Method: http.MethodPost, URL: url, Header: h,
			Body: fmt.Appendf(nil, `{"email":"bench+%s.%d.%d@example.com"}`, e.RunID, series, i)}
		return nil
	}, nil
}

func idempotentPostReplay(ctx context.Context, e *env) (vegeta.Targeter, error) {
	h := e.membersHeader()
	h.Set("Idempotency-Key", "bench-"+e.RunID+"-replay")
	body := fmt.Appendf(nil, `{"email":"bench+%s.replay@example.com"}`, e.RunID)
	// The first call creates the member and stores the outcome; every later one replays it.
	if err := e.call(ctx, http.MethodPost, "/v1/tenants/members", h, rawJSON(body), nil, http.StatusCreated); err != nil {
		return nil, fmt.Errorf("first call: %w", err)
	}
	return vegeta.NewStaticTargeter(vegeta.Target{Method: http.MethodPost, URL: e.BaseURL + "/v1/tenants/members", Header: h, Body: body}), nil
}

// rawJSON is a body that is already JSON.
type rawJSON []byte

func (r rawJSON) MarshalJSON() ([]byte, error) { return r, nil }
