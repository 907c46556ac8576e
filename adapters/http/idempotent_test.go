package http

import (
	"context"
	"io"
	"log/slog"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ports"
)

// twiceStore runs every unit of work twice and keeps the second run's outcome, as a store that
// retried a deadlock, or a pipeline batch that ran a unit again, would.
type twiceStore struct{ nopStore }

func (twiceStore) InTx(ctx context.Context, fn func(context.Context, ports.Tx) error) error {
	_ = fn(ctx, claimTx{})
	return fn(ctx, claimTx{})
}

type claimTx struct{ ports.Tx }

func (claimTx) Idempotency() ports.IdempotencyRepo { return claimRepo{} }

type claimRepo struct{ ports.IdempotencyRepo }

func (claimRepo) Claim(context.Context, string, core.Environment, string, time.Time) (ports.IdempotencyRecord, bool, bool, error) {
	return ports.IdempotencyRecord{}, false, true, nil
}

func (claimRepo) Save(context.Context, ports.IdempotencyRecord) error { return nil }

// TestIdempotent_UnitRunsAgain: an idempotent POST whose unit of work runs twice runs its
// handler twice and answers the second run's response alone: the first run's headers do not
// leak into it, and the handler is not skipped (Fiber's c.Next cannot run a handler twice).
func TestIdempotent_UnitRunsAgain(t *testing.T) {
	svc := nopServices(t)
	idem, err := kernel.NewIdempotency(kernel.IdempotencyDeps{Store: twiceStore{}})
	if err != nil {
		t.Fatal(err)
	}
	svc.Idempotency = idem
	s, err := New(Config{Store: nopStore{}}, svc, slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	runs := 0
	handler := func(c *fiber.Ctx) error {
		runs++
		if runs == 1 {
			c.Set("X-First-Run", "yes")
			return core.E(core.CodeServiceUnavailable, "a lock was busy")
		}
		return c.Status(201).JSON(fiber.Map{"run": runs})
	}
	principal := func(c *fiber.Ctx) error {
		c.Locals(localPrincipal, auth.Principal{TenantID: "ten_x", Environment: core.EnvTest})
		return c.Next()
	}
	s.fiber.Post("/rerun", principal, s.runUnit(nil, applied(handler)))
	req := httptest.NewRequest("POST", "/rerun", nil)
	req.Header.Set(headerIdemKey, "k-1")
	resp, err := s.fiber.Test(req, -1)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 201 || string(body) != `{"run":`+strconv.Itoa(2)+`}` || runs != 2 {
		t.Fatalf("status %d body %s after %d runs: want 201 from the second run", resp.StatusCode, body, runs)
	}
	if resp.Header.Get("X-First-Run") != "" {
		t.Fatal("the first run's header leaked into the answer")
	}
}

// TestNullFields: a replay's stored body hides the secret fields and keeps every other byte,
// the first answer's field order among them.
func TestNullFields(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`{"id":"k_1","secret":"s3cr3t","createdAt":"2026-01-01","nested":{"secret":"kept"}}`,
			`{"id":"k_1","secret":null,"createdAt":"2026-01-01","nested":{"secret":"kept"}}`},
		{`{"z":1, "secret" : {"a":[1,2]} ,"a":2}`, `{"z":1, "secret" : null ,"a":2}`},
		{`{"id":"k_1"}`, `{"id":"k_1"}`},
		{`[1,2]`, `[1,2]`},
		{`not json`, `not json`},
	} {
		if got := string(nullFields([]byte(c.in), []string{"secret"})); got != c.want {
			t.Errorf("nullFields(%s) = %s, want %s", c.in, got, c.want)
		}
	}
}
