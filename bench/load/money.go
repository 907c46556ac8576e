package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"strconv"
	"sync/atomic"

	vegeta "github.com/tsenart/vegeta/v12/lib"
)

// The money path as a partner's backend loads it: many tenants, each with its own TEST key,
// each request a new Idempotency-Key. Both scenarios run at moneyWorkers (64) unless -workers
// is given, and the ledger pipeline is measured in the same run (pipeline.go) so that their
// throughput is read as a ratio to it.

const (
	// moneyTenants is how many tenants (each with its own key) the money scenarios spread over.
	moneyTenants = 32
	// cardsPerTenant is how many cardholder cards each tenant gets for the card scenario.
	cardsPerTenant = 8
	// moneyWorkers is the money scenarios' concurrency.
	moneyWorkers = 64
)

// tenantKey is one bench tenant's TEST key and its cards.
type tenantKey struct {
	TenantID string
	Key      string
	Cards    []string
}

// moneyTenantsOf creates (once per run) the tenants the money scenarios share.
func (e *env) moneyTenantsOf(ctx context.Context) ([]tenantKey, error) {
	if e.tenants != nil {
		return e.tenants, nil
	}
	out := make([]tenantKey, moneyTenants)
	for i := range out {
		token, err := e.session(fmt.Sprintf("%s-m%d", e.RunID, i))
		if err != nil {
			return nil, err
		}
		h := http.Header{"Authorization": {"Bearer " + token}}
		var tenant struct {
			ID string `json:"id"`
		}
		if err := e.call(ctx, http.MethodPost, "/v1/tenants", h, map[string]any{"name": fmt.Sprintf("Bench %s m%d", e.RunID, i)}, &tenant, 200, 201); err != nil {
			return nil, fmt.Errorf("tenant %d: %w", i, err)
		}
		var key struct {
			Key string `json:"key"`
		}
		if err := e.call(ctx, http.MethodPost, "/v1/api-keys", h, map[string]any{"name": "bench money", "scopes": []string{"*"}}, &key, 201); err != nil {
			return nil, fmt.Errorf("tenant %d key: %w", i, err)
		}
		out[i] = tenantKey{TenantID: tenant.ID, Key: key.Key}
	}
	e.tenants = out
	return out, nil
}

func moneyHeader(key string) http.Header {
	return http.Header{"X-Service-Api-Key": {key}, "Content-Type": {"application/json"}}
}

// moneySeries numbers the money scenarios' targeters, so no two send the same Idempotency-Key.
var moneySeries atomic.Uint64

// deposits: POST /v1/sandbox/balance-deposits of 1 USD, round robin over the tenants' keys.
func deposits(ctx context.Context, e *env) (vegeta.Targeter, error) {
	tenants, err := e.moneyTenantsOf(ctx)
	if err != nil {
		return nil, err
	}
	headers := make([]http.Header, len(tenants))
	for i, t := range tenants {
		headers[i] = moneyHeader(t.Key)
	}
	series := moneySeries.Add(1)
	url := e.BaseURL + "/v1/sandbox/balance-deposits"
	body := []byte(`{"amountUsd":"1.00"}`)
	var n atomic.Uint64
	return func(t *vegeta.Target) error {
		if t == nil {
			return vegeta.ErrNilTarget
		}
		i := n.Add(1)
		h := headers[i%uint64(len(headers))].Clone()
		h.Set("Idempotency-Key", "bench-dep-"+e.RunID+"-"+strconv.FormatUint(series, 10)+"-"+strconv.FormatUint(i, 10))
		*t = vegeta.Target{Method: http.MethodPost, URL: url, Header: h, Body: body}
		return nil
	}, nil
}

// cardAuthorizations: POST /v1/sandbox/cards/{id}/authorizations of 0.01 USD on a random card
// of a tenant taken round robin; every tenant's service balance is funded first and each has
// cardsPerTenant cardholder cards drawing on it.
func cardAuthorizations(ctx context.Context, e *env) (vegeta.Targeter, error) {
	tenants, err := e.moneyTenantsOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := e.issueCards(ctx, tenants); err != nil {
		return nil, err
	}
	headers := make([]http.Header, len(tenants))
	for i, t := range tenants {
		headers[i] = moneyHeader(t.Key)
	}
	series := moneySeries.Add(1)
	body := []byte(`{"amountUsd":"0.01","mcc":"5411","merchantName":"bench"}`)
	var n atomic.Uint64
	return func(t *vegeta.Target) error {
		if t == nil {
			return vegeta.ErrNilTarget
		}
		i := n.Add(1)
		ten := tenants[i%uint64(len(tenants))]
		h := headers[i%uint64(len(headers))].Clone()
		h.Set("Idempotency-Key", "bench-auth-"+e.RunID+"-"+strconv.FormatUint(series, 10)+"-"+strconv.FormatUint(i, 10))
		card := ten.Cards[rand.IntN(len(ten.Cards))]
		*t = vegeta.Target{Method: http.MethodPost, URL: e.BaseURL + "/v1/sandbox/cards/" + card + "/authorizations", Header: h, Body: body}
		return nil
	}, nil
}

// issueCards funds each tenant's service balance and issues its cards (once per run).
func (e *env) issueCards(ctx context.Context, tenants []tenantKey) error {
	for i := range tenants {
		t := &tenants[i]
		if len(t.Cards) > 0 {
			continue
		}
		h := moneyHeader(t.Key)
		if err := e.call(ctx, http.MethodPost, "/v1/sandbox/balance-deposits", h, map[string]any{"amountUsd": "1000000"}, nil, 201); err != nil {
			return fmt.Errorf("fund tenant %d: %w", i, err)
		}
		var holder struct {
			ID string `json:"cardholderId"`
		}
		if err := e.call(ctx, http.MethodPost, "/v1/cardholders", h, map[string]any{"name": "Bench Holder", "email": fmt.Sprintf("holder%d@example.com", i)}, &holder, 201); err != nil {
			return fmt.Errorf("cardholder of tenant %d: %w", i, err)
		}
		for range cardsPerTenant {
			var card struct {
				ID string `json:"cardId"`
			}
			if err := e.call(ctx, http.MethodPost, "/v1/cards", h, map[string]any{"cardholderId": holder.ID}, &card, 201); err != nil {
				return fmt.Errorf("card of tenant %d: %w", i, err)
			}
			t.Cards = append(t.Cards, card.ID)
		}
	}
	return nil
}
