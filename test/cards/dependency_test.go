package cards

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// downIssuer is the card issuer behind a switch: while down, every call fails without an
// answer, as a vendor outage does (a refused connection).
type downIssuer struct {
	ports.CardIssuer
	down *atomic.Bool
}

var errIssuerDown = errors.New("dial tcp 10.0.0.1:443: connect: connection refused")

func (d downIssuer) IssueCard(ctx context.Context, in ports.IssueCardInput) (ports.IssuedCard, error) {
	if d.down.Load() {
		return ports.IssuedCard{}, errIssuerDown
	}
	return d.CardIssuer.IssueCard(ctx, in)
}

// dependency finds one outside dependency in the status report.
func dependency(t *testing.T, status map[string]any, name string) map[string]any {
	t.Helper()
	for _, d := range status["dependencies"].([]any) {
		if m := d.(map[string]any); m["name"] == name {
			return m
		}
	}
	t.Fatalf("no dependency %s in %v", name, status["dependencies"])
	return nil
}

// TestDependencies_IssuerOutageDegradesOnlyItsRoutes: while the card issuer does not answer,
// issuing a card answers 503 PROVIDER_UNAVAILABLE and creates nothing, the status report names
// the issuer unavailable (the service degraded, the other dependencies ok) and the metric
// corridor_dependency_up is 0 for it, while /readyz stays 200 and the routes that do not call
// the issuer (cards, wallets, the ledger's balances) keep answering. Once the issuer answers,
// the same issuance succeeds and everything reads ok again.
func TestDependencies_IssuerOutageDegradesOnlyItsRoutes(t *testing.T) {
	t.Parallel()
	down := &atomic.Bool{}
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.DecorateIssuer = func(i ports.CardIssuer) ports.CardIssuer { return downIssuer{CardIssuer: i, down: down} }
	})
	ten := srv.NewTenant(t)
	w := newWallet(t, ten.ID, true, 0)
	if d := dependency(t, ten.Root.Get("/v1/status").Expect(t, 200).JSON(t), "card_issuer"); d["status"] != "ok" || d["kind"] != "card_issuer" {
		t.Fatalf("before the outage: %v", d)
	}

	down.Store(true)
	for range 3 {
		m := ten.Root.Post("/v1/wallets/"+w.ID+"/cards", map[string]any{}).ExpectError(t, http.StatusServiceUnavailable, "PROVIDER_UNAVAILABLE")
		if strings.Contains(m["message"].(string), "10.0.0.1") {
			t.Fatalf("the vendor's error leaked to the client: %v", m)
		}
	}
	status := ten.Root.Get("/v1/status").Expect(t, 200).JSON(t)
	issuer, sms := dependency(t, status, "card_issuer"), dependency(t, status, "sms")
	if status["status"] != "degraded" || issuer["status"] != "unavailable" || issuer["problem"] == nil || issuer["changedAt"] == nil || sms["status"] != "ok" {
		t.Fatalf("during the outage: %v", status)
	}
	if !strings.Contains(srv.Metrics(t), `corridor_dependency_up{dependency="card_issuer",kind="card_issuer"} 0`) {
		t.Fatal("corridor_dependency_up does not show the issuer down")
	}
	srv.Client(t).Get("/readyz").Expect(t, 200)
	if l := ten.Root.Get("/v1/cards").Expect(t, 200).JSON(t); l["total"].(float64) != 0 {
		t.Fatalf("a refused issuance created a card: %v", l)
	}
	ten.Root.Get("/v1/wallets/"+w.ID).Expect(t, 200)
	ten.Root.Get("/v1/balances").Expect(t, 200)

	down.Store(false)
	issue(t, ten.Root, w, map[string]any{})
	status = ten.Root.Get("/v1/status").Expect(t, 200).JSON(t)
	if d := dependency(t, status, "card_issuer"); d["status"] != "ok" || d["problem"] != nil {
		t.Fatalf("after the outage: %v", status)
	}
	if !strings.Contains(srv.Metrics(t), `corridor_dependency_up{dependency="card_issuer",kind="card_issuer"} 1`) {
		t.Fatal("corridor_dependency_up does not show the issuer back")
	}
}
