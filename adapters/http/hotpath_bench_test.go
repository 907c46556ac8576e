package http

import (
	"io"
	"log/slog"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/requestlog"
)

type discardRecorder struct{}

func (discardRecorder) Record(requestlog.Entry) {}

// BenchmarkMoneyRoute_HTTPLayer is the service's own work on a money POST around its unit of
// work: the server's middleware in its order, the route's locals, a key's principal, the
// Idempotency-Key's fingerprint, the strict decode of the bench's card-authorization body, the
// JSON answer and the outcome the runner stores. No database: what it measures is the HTTP
// layer's processor time and allocations per request (docs/performance.md, issue #46).
func BenchmarkMoneyRoute_HTTPLayer(b *testing.B) {
	m, err := newMetrics(nil)
	if err != nil {
		b.Fatal(err)
	}
	s := &Server{log: slog.New(slog.NewJSONHandler(io.Discard, nil)), metrics: m, recorder: discardRecorder{}}
	app := fiber.New(fiber.Config{Immutable: true, JSONEncoder: encodeJSON, DisableStartupMessage: true,
		ErrorHandler: func(c *fiber.Ctx, err error) error { return s.renderError(c, err) }})
	app.Use(resolveClientAddress(nil), withRequestID, s.markSecondary, s.traceRequest, s.observe, s.recoverPanics, withDeadline(25*time.Second), checkQuery)
	p := auth.Principal{Kind: auth.KindAPIKey, TenantID: "ten_bench", Environment: core.EnvTest,
		Scopes: []auth.Scope{auth.ScopePaymentsCreate}, KeyID: "key_bench", KeyPubID: "bench"}
	app.Post("/v1/sandbox/cards/:id/authorizations", func(c *fiber.Ctx) error {
		c.Locals(localEndpoint, "/v1/sandbox/cards/{id}/authorizations")
		c.Locals(localPrincipal, p)
		return c.Next()
	}, func(c *fiber.Ctx) error {
		if _, err := unitRequest(c); err != nil {
			return err
		}
		var req cardAuthorizationRequest
		if err := decodeBody(c, &req); err != nil {
			return err
		}
		at := time.Date(2026, 12, 6, 1, 2, 3, 0, time.UTC)
		if err := c.Status(fiber.StatusCreated).JSON(cardAuthorizationResponse{AuthorizationID: "cau_" + c.Params("id"), CardID: c.Params("id"),
			AmountUSD: req.AmountUSD, CapturedAmountUSD: "0.00", MCC: req.MCC, MerchantName: req.MerchantName, Status: "APPROVED",
			Windows: cardWindowsResponse{Day: "2026-12-06", Week: "2026-W49", Month: "2026-12"}, CreatedAt: at}); err != nil {
			return err
		}
		_ = outcomeOf(c, nil)
		return nil
	})
	handler := app.Handler()
	body := []byte(`{"amountUsd":"0.01","mcc":"5411","merchantName":"bench"}`)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var ctx fasthttp.RequestCtx
		ctx.Request.Header.SetMethod(fiber.MethodPost)
		ctx.Request.SetRequestURI("/v1/sandbox/cards/crd_bench/authorizations")
		ctx.Request.Header.SetContentType("application/json")
		ctx.Request.Header.Set("X-Service-Api-Key", "csk_test_bench_secret")
		ctx.Request.Header.Set("Idempotency-Key", "bench-key")
		ctx.Request.SetBody(body)
		handler(&ctx)
		if ctx.Response.StatusCode() != fiber.StatusCreated {
			b.Fatalf("status %d: %s", ctx.Response.StatusCode(), ctx.Response.Body())
		}
	}
}
