package offramp

import (
	"fmt"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// Phone-alias code budgets (docs/security.md, "Phone-alias code budgets"): codes sent and
// wrong codes are counted per phone, tenant and client IP in the database, and pending aliases
// per tenant are capped, so "create an alias, guess five times, repeat" stops with 429.

// wrongCode is a 6-digit code that is not code.
func wrongCode(code string, i int) string {
	return fmt.Sprintf("%06d", (atoi(code)+1+i)%1_000_000)
}

// expectBudget checks a 429 RATE_LIMITED of the given scope with its Retry-After.
func expectBudget(t *testing.T, r *harness.Response, scope string) {
	t.Helper()
	e := r.ExpectError(t, 429, "RATE_LIMITED")
	details, _ := e["details"].(map[string]any)
	if details["scope"] != scope {
		t.Fatalf("budget scope %v, want %s: %v", details["scope"], scope, e)
	}
	secs, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || secs < 1 || float64(secs) != details["retryAfterSeconds"] {
		t.Fatalf("Retry-After %q, details %v", r.Header.Get("Retry-After"), details)
	}
}

// TestPhoneAliases_GuessingLoopStops runs the attack: a tenant that does not own a number
// creates an alias for it, guesses five wrong codes, and repeats. It is refused after a
// handful of guesses, nowhere near the million codes.
func TestPhoneAliases_GuessingLoopStops(t *testing.T) {
	t.Parallel()
	attacker := env().NewTenant(t)
	phone := harness.Phone("415")
	guesses := 0
	var refused *harness.Response
	for round := 0; round < 1000 && refused == nil; round++ {
		r := attacker.Root.Post("/v1/phone-aliases", map[string]any{"phone": phone})
		if r.Status == 429 {
			refused = r
			break
		}
		id := r.Expect(t, 201).JSON(t)["id"].(string)
		code := lastCode(t, attacker.Root) // the owner's code; the attacker never enters it
		for i := 0; i < recipient.MaxCodeAttempts; i++ {
			v := attacker.Root.Post("/v1/phone-aliases/"+id+"/verify", map[string]any{"code": wrongCode(code, i)})
			if v.Status == 429 {
				refused = v
				break
			}
			guesses++
		}
	}
	if refused == nil {
		t.Fatal("the guessing loop was never refused")
	}
	expectBudget(t, refused, "phone")
	if guesses > recipient.MaxAliasAttemptsPerPhone {
		t.Fatalf("%d wrong guesses before the budget stopped the loop (budget %d)", guesses, recipient.MaxAliasAttemptsPerPhone)
	}
	// Once spent, the phone's budget refuses new aliases for it, whoever asks from this tenant.
	expectBudget(t, attacker.Root.Post("/v1/phone-aliases", map[string]any{"phone": phone}), "phone")
	list := attacker.Root.Get("/v1/phone-aliases").Expect(t, 200).JSON(t)["phoneAliases"].([]any)
	for _, a := range list {
		if a.(map[string]any)["status"] == "VERIFIED" {
			t.Fatalf("the attacker verified the number: %v", a)
		}
	}
}

// TestPhoneAliases_LegitimateVerifyWithinBudget: a typo or two, then the right code, verifies.
func TestPhoneAliases_LegitimateVerifyWithinBudget(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	a := ten.Root.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201).JSON(t)
	code := lastCode(t, ten.Root)
	path := "/v1/phone-aliases/" + a["id"].(string) + "/verify"
	for i := 0; i < 2; i++ {
		ten.Root.Post(path, map[string]any{"code": wrongCode(code, i)}).ExpectError(t, 400, "PHONE_CODE_INVALID")
	}
	if got := ten.Root.Post(path, map[string]any{"code": code}).Expect(t, 200).JSON(t); got["status"] != "VERIFIED" {
		t.Fatalf("alias %v", got)
	}
}

var budgetIPSeq atomic.Int64

// budgetServer starts a service with the given alias budget that believes X-Forwarded-For
// from the loopback test client, so each test can speak from its own client IP.
func budgetServer(t *testing.T, b recipients.AliasBudget) *harness.Env {
	t.Helper()
	return harness.NewServer(t, func(c *wiring.Config) {
		c.AliasBudget = b
		c.TrustedProxies = []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("::1/128")}
	})
}

// freshIP is a client address no other test (or earlier run on a kept database) used.
func freshIP() string {
	n := time.Now().UnixNano()/1000 + budgetIPSeq.Add(1)
	return fmt.Sprintf("10.%d.%d.%d", (n>>16)&0xff, (n>>8)&0xff, n&0xff)
}

func TestPhoneAliases_BudgetPerPhoneRefusesVerify(t *testing.T) {
	t.Parallel()
	srv := budgetServer(t, recipients.AliasBudget{PerPhone: 3, PerIP: 10_000})
	ten := srv.NewTenant(t)
	c := ten.Root.With("X-Forwarded-For", freshIP())
	a := c.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201).JSON(t)
	code := lastCode(t, c)
	path := "/v1/phone-aliases/" + a["id"].(string) + "/verify"
	for i := 0; i < 3; i++ {
		c.Post(path, map[string]any{"code": wrongCode(code, i)}).ExpectError(t, 400, "PHONE_CODE_INVALID")
	}
	// Three wrong codes spend the phone's budget: even the right code is refused now, and
	// the refusal changes nothing.
	expectBudget(t, c.Post(path, map[string]any{"code": code}), "phone")
	got := c.Get("/v1/phone-aliases").Expect(t, 200).JSON(t)["phoneAliases"].([]any)[0].(map[string]any)
	if got["status"] != "PENDING_VERIFICATION" {
		t.Fatalf("alias after a refused verify: %v", got)
	}
}

func TestPhoneAliases_BudgetPerTenant(t *testing.T) {
	t.Parallel()
	srv := budgetServer(t, recipients.AliasBudget{PerTenant: 3, PerIP: 10_000})
	ten := srv.NewTenant(t)
	c := ten.Root.With("X-Forwarded-For", freshIP())
	for i := 0; i < 3; i++ {
		c.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201)
	}
	expectBudget(t, c.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}), "tenant")
	// Another tenant is not affected.
	srv.NewTenant(t).Root.With("X-Forwarded-For", freshIP()).Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201)
}

func TestPhoneAliases_BudgetPerIP(t *testing.T) {
	t.Parallel()
	srv := budgetServer(t, recipients.AliasBudget{PerIP: 2})
	ip := freshIP()
	for i := 0; i < 2; i++ {
		srv.NewTenant(t).Root.With("X-Forwarded-For", ip).Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201)
	}
	third := srv.NewTenant(t)
	expectBudget(t, third.Root.With("X-Forwarded-For", ip).Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}), "ip")
	third.Root.With("X-Forwarded-For", freshIP()).Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201)
}

func TestPhoneAliases_PendingCap(t *testing.T) {
	t.Parallel()
	srv := budgetServer(t, recipients.AliasBudget{MaxPending: 2, PerIP: 10_000})
	ten := srv.NewTenant(t)
	c := ten.Root.With("X-Forwarded-For", freshIP())
	first := c.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201).JSON(t)
	firstCode := lastCode(t, c)
	c.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201)
	expectBudget(t, c.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}), "pendingAliases")
	// Verifying one frees its place.
	c.Post("/v1/phone-aliases/"+first["id"].(string)+"/verify", map[string]any{"code": firstCode}).Expect(t, 200)
	c.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201)
}

// TestPhoneAliases_BudgetHoldsUnderConcurrency: requests fired at once cannot all pass the
// same count; exactly the budget is spent.
func TestPhoneAliases_BudgetHoldsUnderConcurrency(t *testing.T) {
	t.Parallel()
	srv := budgetServer(t, recipients.AliasBudget{PerPhone: 3, PerTenant: 100, MaxPending: 100, PerIP: 10_000})
	ten := srv.NewTenant(t)
	c := ten.Root.With("X-Forwarded-For", freshIP())
	phone := harness.Phone("415")
	var created, limited atomic.Int64
	var wg sync.WaitGroup
	for i := 0; i < 12; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			switch c.Post("/v1/phone-aliases", map[string]any{"phone": phone}).Status {
			case 201:
				created.Add(1)
			case 429:
				limited.Add(1)
			}
		}()
	}
	wg.Wait()
	if created.Load() != 3 || limited.Load() != 9 {
		t.Fatalf("%d created, %d refused; want 3 and 9", created.Load(), limited.Load())
	}
}
