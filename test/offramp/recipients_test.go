package offramp

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

var codeInBody = regexp.MustCompile(`\b(\d{6})\b`)

// lastCode reads the newest SMS of the tenant's sandbox outbox and returns its code.
func lastCode(t *testing.T, c *harness.Client) string {
	t.Helper()
	m := c.Get("/v1/sandbox/sms-messages?take=1").Expect(t, 200).JSON(t)
	msgs := m["messages"].([]any)
	if len(msgs) == 0 {
		t.Fatal("no SMS in the outbox")
	}
	match := codeInBody.FindStringSubmatch(msgs[0].(map[string]any)["body"].(string))
	if match == nil {
		t.Fatalf("no code in %v", msgs[0])
	}
	return match[1]
}

// noPhone fails when a response body carries the full number (in any common spelling).
func noPhone(t *testing.T, phone string, bodies ...[]byte) {
	t.Helper()
	national := strings.TrimPrefix(phone, "+1")
	for _, b := range bodies {
		if strings.Contains(string(b), national) {
			t.Fatalf("a response contains the full phone number: %s", b)
		}
	}
}

// verifiedAlias proves phone for the tenant and returns the alias.
func verifiedAlias(t *testing.T, c *harness.Client, phone string) map[string]any {
	t.Helper()
	a := c.Post("/v1/phone-aliases", map[string]any{"phone": phone}).Expect(t, 201).JSON(t)
	return c.Post("/v1/phone-aliases/"+a["id"].(string)+"/verify", map[string]any{"code": lastCode(t, c)}).Expect(t, 200).JSON(t)
}

func TestPhoneAliases_VerifyBySMSCode(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	phone := harness.Phone("415")
	created := ten.Root.Post("/v1/phone-aliases", map[string]any{"phone": phone}).Expect(t, 201)
	a := created.JSON(t)
	if a["status"] != "PENDING_VERIFICATION" || a["attemptsRemaining"] != float64(5) || a["codeExpiresAt"] == nil ||
		!strings.HasSuffix(a["phoneMasked"].(string), phone[len(phone)-2:]) {
		t.Fatalf("created %v", a)
	}
	outbox := ten.Root.Get("/v1/sandbox/sms-messages").Expect(t, 200)
	code := lastCode(t, ten.Root)
	wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1_000_000)
	id := a["id"].(string)
	e := ten.Root.Post("/v1/phone-aliases/"+id+"/verify", map[string]any{"code": wrong}).ExpectError(t, 400, "PHONE_CODE_INVALID")
	if e["details"].(map[string]any)["attemptsRemaining"] != float64(4) {
		t.Fatalf("attempts %v", e)
	}
	ten.Root.Post("/v1/phone-aliases/"+id+"/verify", map[string]any{"code": "12345"}).ExpectError(t, 400, "VALIDATION_FAILED")
	ok := ten.Root.Post("/v1/phone-aliases/"+id+"/verify", map[string]any{"code": code}).Expect(t, 200)
	v := ok.JSON(t)
	if v["status"] != "VERIFIED" || v["verifiedAt"] == nil || v["codeExpiresAt"] != nil {
		t.Fatalf("verified %v", v)
	}
	ten.Root.Post("/v1/phone-aliases/"+id+"/verify", map[string]any{"code": code}).ExpectError(t, 409, "PHONE_ALIAS_NOT_PENDING")
	list := ten.Root.Get("/v1/phone-aliases").Expect(t, 200)
	if l := list.JSON(t); l["total"] != float64(1) {
		t.Fatalf("list %v", l)
	}
	noPhone(t, phone, created.Body, outbox.Body, ok.Body, list.Body)
	// The same tenant proving the number again is a conflict, not a second alias.
	ten.Root.Post("/v1/phone-aliases", map[string]any{"phone": phone}).ExpectError(t, 409, "INVALID_STATE")
}

func TestPhoneAliases_Validation(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	for _, bad := range []string{"", "4155552671", "+1 415 555 2671", "+999", "+14155552671x"} {
		ten.Root.Post("/v1/phone-aliases", map[string]any{"phone": bad}).ExpectError(t, 400, "VALIDATION_FAILED")
	}
	ten.Root.Post("/v1/phone-aliases/pha_nope/verify", map[string]any{"code": "123456"}).ExpectError(t, 404, "PHONE_ALIAS_NOT_FOUND")
	other := env().NewTenant(t)
	a := ten.Root.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201).JSON(t)
	other.Root.Post("/v1/phone-aliases/"+a["id"].(string)+"/verify", map[string]any{"code": "123456"}).ExpectError(t, 404, "PHONE_ALIAS_NOT_FOUND")
	if m := other.Root.Get("/v1/sandbox/sms-messages").Expect(t, 200).JSON(t); m["total"] != float64(0) {
		t.Fatalf("another tenant's outbox leaked: %v", m)
	}
	readOnly := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "ro"}))
	readOnly.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).ExpectError(t, 403, "INSUFFICIENT_SCOPE")
	readOnly.Get("/v1/phone-aliases").Expect(t, 200)
}

func TestPhoneAliases_FiveWrongCodesFail(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	a := ten.Root.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201).JSON(t)
	code := lastCode(t, ten.Root)
	wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1_000_000)
	path := "/v1/phone-aliases/" + a["id"].(string) + "/verify"
	for i := 0; i < 4; i++ {
		ten.Root.Post(path, map[string]any{"code": wrong}).ExpectError(t, 400, "PHONE_CODE_INVALID")
	}
	ten.Root.Post(path, map[string]any{"code": wrong}).ExpectError(t, 403, "PHONE_CODE_TOO_MANY_ATTEMPTS")
	ten.Root.Post(path, map[string]any{"code": code}).ExpectError(t, 409, "PHONE_ALIAS_NOT_PENDING")
}

func TestPhoneAliases_OneTenantPerNumber(t *testing.T) {
	t.Parallel()
	phone := harness.Phone("415")
	a, b := env().NewTenant(t), env().NewTenant(t)
	pa := a.Root.Post("/v1/phone-aliases", map[string]any{"phone": phone}).Expect(t, 201).JSON(t)
	pb := b.Root.Post("/v1/phone-aliases", map[string]any{"phone": phone}).Expect(t, 201).JSON(t)
	codeA, codeB := lastCode(t, a.Root), lastCode(t, b.Root)
	// Both verify at once: exactly one wins, the other is PHONE_ALIAS_TAKEN.
	var wg sync.WaitGroup
	statuses := make([]int, 2)
	for i, c := range []struct {
		cl       *harness.Client
		id, code string
	}{{a.Root, pa["id"].(string), codeA}, {b.Root, pb["id"].(string), codeB}} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			statuses[i] = c.cl.Post("/v1/phone-aliases/"+c.id+"/verify", map[string]any{"code": c.code}).Status
		}()
	}
	wg.Wait()
	if !(statuses[0] == 200 && statuses[1] == 409 || statuses[0] == 409 && statuses[1] == 200) {
		t.Fatalf("statuses %v", statuses)
	}
	third := env().NewTenant(t)
	third.Root.Post("/v1/phone-aliases", map[string]any{"phone": phone}).ExpectError(t, 409, "PHONE_ALIAS_TAKEN")
}

func TestCredentials(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	c := ten.Root.Get("/v1/credentials").Expect(t, 200).JSON(t)["credentials"].([]any)[0].(map[string]any)
	if c["type"] != "BUSINESS_IDENTITY" || c["status"] != nil {
		t.Fatalf("no credential yet: %v", c)
	}
	for _, st := range []string{"EXPIRED", "REVOKED", "SUSPENDED", "ACTIVE"} {
		got := ten.Root.Post("/v1/sandbox/credentials", map[string]any{"status": st}).Expect(t, 200).JSON(t)
		if got["status"] != st {
			t.Fatalf("set %s: %v", st, got)
		}
	}
	c = ten.Root.Get("/v1/credentials").Expect(t, 200).JSON(t)["credentials"].([]any)[0].(map[string]any)
	if c["status"] != "ACTIVE" {
		t.Fatalf("credential %v", c)
	}
	ten.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "PENDING"}).ExpectError(t, 400, "VALIDATION_FAILED")
	ten.Root.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE", "type": "PASSPORT"}).ExpectError(t, 400, "VALIDATION_FAILED")
	live := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "live", "environment": "live", "scopes": []string{"*"}}))
	live.Post("/v1/sandbox/credentials", map[string]any{"status": "ACTIVE"}).ExpectError(t, 403, "SANDBOX_ONLY")
	live.Get("/v1/sandbox/sms-messages").ExpectError(t, 403, "SANDBOX_ONLY")
	// Credentials are per environment: the LIVE side has none.
	if lc := live.Get("/v1/credentials").Expect(t, 200).JSON(t)["credentials"].([]any)[0].(map[string]any); lc["status"] != nil {
		t.Fatalf("LIVE credential %v", lc)
	}
}

func atoi(s string) int {
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}

// TestPhoneAliases_WrongCodesCountUnderOneIdempotencyKey: a wrong code is a 400, which is not
// stored, so resending it under the same Idempotency-Key runs again and spends another attempt
// (never a free replay, never a rolled-back count); five wrong codes end the alias as always.
func TestPhoneAliases_WrongCodesCountUnderOneIdempotencyKey(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	a := ten.Root.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201).JSON(t)
	code := lastCode(t, ten.Root)
	wrong := fmt.Sprintf("%06d", (atoi(code)+1)%1_000_000)
	path := "/v1/phone-aliases/" + a["id"].(string) + "/verify"
	c := ten.Root.With("Idempotency-Key", "guess")
	for remaining := 4; remaining >= 1; remaining-- {
		r := c.Post(path, map[string]any{"code": wrong})
		e := r.ExpectError(t, 400, "PHONE_CODE_INVALID")
		if got := e["details"].(map[string]any)["attemptsRemaining"]; got != float64(remaining) || r.Header.Get("Idempotent-Replayed") != "" {
			t.Fatalf("attemptsRemaining %v (replayed %q), want %d", got, r.Header.Get("Idempotent-Replayed"), remaining)
		}
	}
	ten.Root.With("Idempotency-Key", "guess-5").Post(path, map[string]any{"code": wrong}).ExpectError(t, 403, "PHONE_CODE_TOO_MANY_ATTEMPTS")
	ten.Root.Post(path, map[string]any{"code": code}).ExpectError(t, 409, "PHONE_ALIAS_NOT_PENDING")
}

// TestOfframp_PhoneReverification: a payment to a phone whose alias verification is older
// than OFFRAMP_PHONE_REVERIFY_AFTER (2 s on this server) holds PHONE_REVERIFICATION_REQUIRED;
// the recipient re-verifies the alias (a fresh code; the number keeps resolving meanwhile) and
// the payment quotes. Re-verifying an alias that is not VERIFIED is refused.
func TestOfframp_PhoneReverification(t *testing.T) {
	t.Parallel()
	srv := harness.NewServer(t, func(c *wiring.Config) { c.Payouts.PhoneReverifyAfter = 2 * time.Second })
	p := newPair(t, "20")
	destination(t, p.recipient.Root, serviceBalance)
	sender, recipient := srv.Client(t).WithKey(p.sender.RootKey), srv.Client(t).WithKey(p.recipient.RootKey)
	time.Sleep(2100 * time.Millisecond) // the alias's proof ages past the window
	m := sender.Post("/v1/offramp/payments", map[string]any{"phone": p.phone, "amountUsd": "3"}).Expect(t, 201).JSON(t)
	if m["status"] != "COMPLIANCE_HOLD" || fmt.Sprint(m["holdReasons"]) != "[PHONE_REVERIFICATION_REQUIRED]" {
		t.Fatalf("an aged proof: %v", m)
	}
	aliases := p.recipient.Root.Get("/v1/phone-aliases").Expect(t, 200).JSON(t)["phoneAliases"].([]any)
	aliasID := aliases[0].(map[string]any)["id"].(string)
	a := recipient.Post("/v1/phone-aliases/"+aliasID+"/reverify", nil).Expect(t, 200).JSON(t)
	if a["status"] != "VERIFIED" {
		t.Fatalf("re-verifying: %v", a)
	}
	recipient.Post("/v1/phone-aliases/"+aliasID+"/verify", map[string]any{"code": lastCode(t, p.recipient.Root)}).Expect(t, 200)
	if g := get(t, p.sender.Root, m["paymentId"].(string)); g["status"] != "AWAITING_RECIPIENT_CONFIRMATION" {
		t.Fatalf("after re-verification: %v", g)
	}
	pending := p.recipient.Root.Post("/v1/phone-aliases", map[string]any{"phone": harness.Phone("415")}).Expect(t, 201).JSON(t)
	p.recipient.Root.Post("/v1/phone-aliases/"+pending["id"].(string)+"/reverify", nil).ExpectError(t, 409, "INVALID_STATE")
	env().NewTenant(t).Root.Post("/v1/phone-aliases/"+aliasID+"/reverify", nil).ExpectError(t, 404, "PHONE_ALIAS_NOT_FOUND")
}
