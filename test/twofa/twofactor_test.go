package twofa

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestTwoFactor_Handshake walks the whole handshake: enroll and verify a TOTP factor, a
// protected propose answers TWOFA_REQUIRED with a bound challenge, a code satisfies it, a
// retry with another body is TWOFA_BINDING_MISMATCH, two parallel retries with the challenge
// create one payment, and a later retry with a new Idempotency-Key finds the challenge used.
func TestTwoFactor_Handshake(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)

	f := ten.Root.Post("/v1/twofactor/factors", map[string]any{"label": "ops phone"}).Expect(t, http.StatusCreated).JSON(t)
	secret, _ := f["secret"].(string)
	if f["status"] != "PENDING" || secret == "" || !strings.HasPrefix(f["otpauthUri"].(string), "otpauth://totp/") {
		t.Fatalf("enrolment: %v", f)
	}
	ten.Root.Post("/v1/twofactor/factors/"+f["id"].(string)+"/verify", map[string]any{"code": wrongCode(t, secret)}).
		ExpectError(t, http.StatusBadRequest, "TWOFA_INVALID_CODE")
	ten.Root.Post("/v1/twofactor/factors/"+f["id"].(string)+"/verify", map[string]any{"code": "12ab"}).
		ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	ten.Root.Post("/v1/twofactor/factors/"+f["id"].(string)+"/verify", map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK)
	list := ten.Root.Get("/v1/twofactor/factors").Expect(t, http.StatusOK)
	if strings.Contains(string(list.Body), secret) {
		t.Fatal("the factor list shows the secret")
	}
	if fs := list.JSON(t)["factors"].([]any); len(fs) != 1 || fs[0].(map[string]any)["status"] != "ACTIVE" {
		t.Fatalf("factors: %v", fs)
	}

	stepUpSettings(t, ten.Root, secret, map[string]any{"approvalAboveUsd": "10"})
	to := freshAddress(t)
	// At or below the threshold: no approval.
	ten.Root.Post("/v1/payments", payTo(w, to, "10")).Expect(t, http.StatusCreated)

	body := payTo(w, to, "25.5")
	e := keyed(ten.Root).Post("/v1/payments", body).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED")
	d := details(t, e)
	chID, _ := d["challengeId"].(string)
	tx, _ := d["transaction"].(map[string]any)
	if chID == "" || d["requiredFactors"] != float64(1) || len(d["factors"].([]any)) != 1 ||
		tx["amountUsd"] != "25.5" || tx["destinationAddress"] != to || tx["destinationLabel"] != "" {
		t.Fatalf("TWOFA_REQUIRED details: %v", d)
	}
	// Not yet satisfied.
	keyed(ten.Root).Post("/v1/payments", withChallenge(body, chID)).ExpectError(t, http.StatusForbidden, "TWOFA_CHALLENGE_NOT_REDEEMABLE")
	// A wrong code counts.
	e = ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": wrongCode(t, secret)}).
		ExpectError(t, http.StatusBadRequest, "TWOFA_INVALID_CODE")
	if details(t, e)["attemptsRemaining"] != float64(4) {
		t.Fatalf("attemptsRemaining: %v", e)
	}
	ch := ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK).JSON(t)
	if ch["status"] != "SATISFIED" || ch["paymentId"] != nil {
		t.Fatalf("challenge: %v", ch)
	}
	// Another amount, another destination or another memo is another transaction.
	keyed(ten.Root).Post("/v1/payments", withChallenge(payTo(w, to, "25.6"), chID)).ExpectError(t, http.StatusForbidden, "TWOFA_BINDING_MISMATCH")
	keyed(ten.Root).Post("/v1/payments", withChallenge(payTo(w, freshAddress(t), "25.5"), chID)).ExpectError(t, http.StatusForbidden, "TWOFA_BINDING_MISMATCH")
	memo := withChallenge(body, chID)
	memo["memo"] = "changed"
	keyed(ten.Root).Post("/v1/payments", memo).ExpectError(t, http.StatusForbidden, "TWOFA_BINDING_MISMATCH")

	// Two parallel retries, each with its own key: one payment.
	var wg sync.WaitGroup
	statuses := make([]*harness.Response, 4)
	for i := range statuses {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			statuses[i] = keyed(ten.Root).Post("/v1/payments", withChallenge(body, chID))
		}(i)
	}
	wg.Wait()
	created := 0
	var payID string
	for _, r := range statuses {
		switch r.Status {
		case http.StatusCreated:
			created++
			payID = r.JSON(t)["id"].(string)
		case http.StatusForbidden:
			if r.JSON(t)["code"] != "TWOFA_CHALLENGE_NOT_REDEEMABLE" {
				t.Fatalf("parallel retry: %s", r.Body)
			}
		default:
			t.Fatalf("parallel retry: %d %s", r.Status, r.Body)
		}
	}
	if created != 1 {
		t.Fatalf("%d payments from one challenge", created)
	}
	p := ten.Root.Get("/v1/payments/"+payID).Expect(t, http.StatusOK).JSON(t)
	if p["amount"] != "25.5" || p["destinationAddress"] != to || p["status"] != "AWAITING_SIGNATURE" {
		t.Fatalf("payment: %v", p)
	}
	// A new Idempotency-Key after the handshake is a new request: the challenge is used, so a
	// separate payment needs a new handshake.
	keyed(ten.Root).Post("/v1/payments", withChallenge(body, chID)).ExpectError(t, http.StatusForbidden, "TWOFA_CHALLENGE_NOT_REDEEMABLE")
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).ExpectError(t, http.StatusForbidden, "TWOFA_CHALLENGE_NOT_REDEEMABLE")
	e = keyed(ten.Root).Post("/v1/payments", body).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED")
	if details(t, e)["challengeId"] == chID {
		t.Fatal("a new propose reused the used challenge")
	}
}

func TestTwoFactor_IdempotentRetryReplays(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	putSettings(t, ten.Root, map[string]any{"approvalAboveUsd": "0"})
	_, secret := enroll(t, ten.Root)
	body := payTo(w, freshAddress(t), "3")
	chID := details(t, ten.Root.Post("/v1/payments", body).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED"))["challengeId"].(string)
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK)
	k := keyed(ten.Root)
	first := k.Post("/v1/payments", withChallenge(body, chID)).Expect(t, http.StatusCreated).JSON(t)
	again := k.Post("/v1/payments", withChallenge(body, chID)).Expect(t, http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "true" || again.JSON(t)["id"] != first["id"] {
		t.Fatalf("retry with the same key: %s", again.Body)
	}
	if list := ten.Root.Get("/v1/payments").Expect(t, http.StatusOK).JSON(t); list["total"] != float64(1) {
		t.Fatalf("payments: %v", list["total"])
	}
}

func TestTwoFactor_TooManyAttempts(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	putSettings(t, ten.Root, map[string]any{"approveNewPayees": true})
	_, secret := enroll(t, ten.Root)
	body := payTo(w, freshAddress(t), "2")
	chID := details(t, ten.Root.Post("/v1/payments", body).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED"))["challengeId"].(string)
	for want := 4; want >= 1; want-- {
		e := ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": wrongCode(t, secret)}).
			ExpectError(t, http.StatusBadRequest, "TWOFA_INVALID_CODE")
		if details(t, e)["attemptsRemaining"] != float64(want) {
			t.Fatalf("attemptsRemaining %v, want %d", details(t, e)["attemptsRemaining"], want)
		}
	}
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": wrongCode(t, secret)}).
		ExpectError(t, http.StatusForbidden, "TWOFA_TOO_MANY_ATTEMPTS")
	// Cancelled: even the right code is refused, and the challenge redeems nothing.
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).
		ExpectError(t, http.StatusForbidden, "TWOFA_TOO_MANY_ATTEMPTS")
	ten.Root.Post("/v1/payments", withChallenge(body, chID)).ExpectError(t, http.StatusForbidden, "TWOFA_CHALLENGE_NOT_REDEEMABLE")
}

func TestTwoFactor_ChallengeExpired(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	putSettings(t, ten.Root, map[string]any{"approveNewPayees": true})
	_, secret := enroll(t, ten.Root)
	clock := &testClock{}
	c := harness.NewServer(t, func(c *wiring.Config) { c.Clock = clock }).Client(t).WithKey(ten.RootKey)
	body := payTo(w, freshAddress(t), "2")
	chID := details(t, c.Post("/v1/payments", body).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED"))["challengeId"].(string)
	clock.Advance(11 * time.Minute)
	c.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).ExpectError(t, http.StatusForbidden, "TWOFA_CHALLENGE_EXPIRED")
	c.Post("/v1/payments", withChallenge(body, chID)).ExpectError(t, http.StatusForbidden, "TWOFA_CHALLENGE_EXPIRED")
}

func TestTwoFactor_NotEnrolled(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	putSettings(t, ten.Root, map[string]any{"approvalAboveUsd": "5"})
	ten.Root.Post("/v1/payments", payTo(w, freshAddress(t), "6")).ExpectError(t, http.StatusForbidden, "TWOFA_NOT_ENROLLED")
	// A factor that was never verified does not count.
	ten.Root.Post("/v1/twofactor/factors", map[string]any{}).Expect(t, http.StatusCreated)
	ten.Root.Post("/v1/payments", payTo(w, freshAddress(t), "6")).ExpectError(t, http.StatusForbidden, "TWOFA_NOT_ENROLLED")
	if list := ten.Root.Get("/v1/payments").Expect(t, http.StatusOK).JSON(t); list["total"] != float64(0) {
		t.Fatalf("payments: %v", list["total"])
	}
}

func TestTwoFactor_AgentNotPermitted(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	putSettings(t, ten.Root, map[string]any{"approveNewPayees": true})
	_, secret := enroll(t, ten.Root)
	agent := ten.Root.Post("/v1/agents", map[string]any{"name": "buyer"}).Expect(t, http.StatusCreated).JSON(t)
	// An agent key pays from its agent's Safe only.
	w := ten.Root.Post("/v1/agents/"+agent["id"].(string)+"/wallet", map[string]any{
		"owners": []map[string]any{{"address": harness.NewOwner(t).Address.Hex(), "role": "AGENT"}}}).Expect(t, http.StatusAccepted).JSON(t)["id"].(string)
	ten.Root.WaitWalletDeployed(t, w)
	key := ten.Root.Post("/v1/agents/"+agent["id"].(string)+"/keys", map[string]any{"name": "buyer key", "scopes": []string{"payments:create", "payments:read"}}).
		Expect(t, http.StatusCreated).JSON(t)["key"].(string)
	ag := env().Client(t).WithKey(key)
	body := payTo(w, freshAddress(t), "2")
	ag.Post("/v1/payments", body).ExpectError(t, http.StatusForbidden, "TWOFA_AGENT_NOT_PERMITTED")
	// Nor can an agent key approve a challenge a person's propose opened.
	chID := details(t, ten.Root.Post("/v1/payments", body).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED"))["challengeId"].(string)
	ag.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).ExpectError(t, http.StatusForbidden, "TWOFA_AGENT_NOT_PERMITTED")
}

func TestTwoFactor_SettingsAndIsolation(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	got := ten.Root.Get("/v1/twofactor/settings").Expect(t, http.StatusOK).JSON(t)
	if got["approvalAboveUsd"] != nil || got["approveNewPayees"] != false || got["requireSavedPayees"] != false || got["updatedAt"] != nil {
		t.Fatalf("default settings: %v", got)
	}
	e := ten.Root.Do(http.MethodPut, "/v1/twofactor/settings", map[string]any{"approvalAboveUsd": "1.0000001"}).ExpectError(t, http.StatusBadRequest, "VALIDATION_FAILED")
	if harness.Field(e, "approvalAboveUsd") == "" {
		t.Fatalf("field: %v", e)
	}
	got = putSettings(t, ten.Root, map[string]any{"approvalAboveUsd": "100.25", "approveNewPayees": true})
	if got["approvalAboveUsd"] != "100.25" || got["approveNewPayees"] != true || got["updatedAt"] == nil {
		t.Fatalf("settings: %v", got)
	}
	// twofactor:read cannot change them.
	reader := env().Client(t).WithKey(env().NewKey(t, ten.Session, map[string]any{"name": "reader", "scopes": []string{"twofactor:read"}}))
	reader.Get("/v1/twofactor/settings").Expect(t, http.StatusOK)
	reader.Do(http.MethodPut, "/v1/twofactor/settings", map[string]any{}).ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	reader.Post("/v1/twofactor/factors", map[string]any{}).ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")

	// Another tenant's factor and challenge are not found.
	f, secret := enroll(t, ten.Root)
	chID := details(t, ten.Root.Post("/v1/payments", payTo(w, freshAddress(t), "2")).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED"))["challengeId"].(string)
	other := env().NewTenant(t)
	other.Root.Post("/v1/twofactor/factors/"+f["id"].(string)+"/verify", map[string]any{"code": code(t, secret)}).ExpectError(t, http.StatusNotFound, "TWOFA_FACTOR_NOT_FOUND")
	other.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).ExpectError(t, http.StatusNotFound, "TWOFA_CHALLENGE_NOT_FOUND")
	if fs := other.Root.Get("/v1/twofactor/factors").Expect(t, http.StatusOK).JSON(t)["factors"].([]any); len(fs) != 0 {
		t.Fatalf("other tenant's factors: %v", fs)
	}
	putSettings(t, other.Root, map[string]any{"approveNewPayees": true})
	enroll(t, other.Root)
	ow := newWallet(t, other)
	other.Root.Post("/v1/payments", withChallenge(payTo(ow, freshAddress(t), "2"), chID)).ExpectError(t, http.StatusNotFound, "TWOFA_CHALLENGE_NOT_FOUND")
}

// TestTwoFactor_TransactionProposal: a transaction proposal needs approval whenever approval is
// on (it declares no USDC amount), and its challenge binds the call's data too.
func TestTwoFactor_TransactionProposal(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	putSettings(t, ten.Root, map[string]any{"approvalAboveUsd": "1000000"})
	_, secret := enroll(t, ten.Root)
	to := freshAddress(t)
	body := map[string]any{"to": to, "data": "0x01020304"}
	e := ten.Root.Post("/v1/wallets/"+w+"/transactions", body).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED")
	d := details(t, e)
	if tx := d["transaction"].(map[string]any); tx["amountUsd"] != "0" || tx["destinationAddress"] != to {
		t.Fatalf("bound transaction: %v", tx)
	}
	chID := d["challengeId"].(string)
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK)
	ten.Root.Post("/v1/wallets/"+w+"/transactions", map[string]any{"to": to, "data": "0x01020305", "twofaChallengeId": chID}).
		ExpectError(t, http.StatusForbidden, "TWOFA_BINDING_MISMATCH")
	ten.Root.Post("/v1/wallets/"+w+"/transactions", map[string]any{"to": to, "data": "0x01020304", "value": "1", "twofaChallengeId": chID}).
		ExpectError(t, http.StatusForbidden, "TWOFA_BINDING_MISMATCH")
	got := ten.Root.Post("/v1/wallets/"+w+"/transactions", withChallenge(body, chID)).Expect(t, http.StatusCreated).JSON(t)
	if got["kind"] != "transaction" {
		t.Fatalf("proposal: %v", got)
	}
}

// TestTwoFactor_ParallelWrongCodes: wrong codes sent in parallel are each counted once under
// the challenge's row lock: exactly MaxAttempts-1 answer TWOFA_INVALID_CODE and the rest
// TWOFA_TOO_MANY_ATTEMPTS.
func TestTwoFactor_ParallelWrongCodes(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	putSettings(t, ten.Root, map[string]any{"approveNewPayees": true})
	_, secret := enroll(t, ten.Root)
	chID := details(t, ten.Root.Post("/v1/payments", payTo(w, freshAddress(t), "2")).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED"))["challengeId"].(string)
	wrong := wrongCode(t, secret)
	var wg sync.WaitGroup
	codes := make([]string, 12)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": wrong})
			codes[i], _ = r.JSON(t)["code"].(string)
		}(i)
	}
	wg.Wait()
	count := map[string]int{}
	for _, c := range codes {
		count[c]++
	}
	if count["TWOFA_INVALID_CODE"] != 4 || count["TWOFA_TOO_MANY_ATTEMPTS"] != 8 {
		t.Fatalf("answers: %v", count)
	}
}

// TestContacts_ParallelSaves: one address saved by parallel requests is saved once; a retry
// under one Idempotency-Key replays the contact.
func TestContacts_ParallelSaves(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	addr := freshAddress(t)
	var wg sync.WaitGroup
	statuses := make([]int, 8)
	for i := range statuses {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			statuses[i] = keyed(ten.Root).Post("/v1/contacts", map[string]any{"address": addr, "label": "Same"}).Status
		}(i)
	}
	wg.Wait()
	created := 0
	for _, s := range statuses {
		switch s {
		case http.StatusCreated:
			created++
		case http.StatusConflict:
		default:
			t.Fatalf("statuses %v", statuses)
		}
	}
	if created != 1 {
		t.Fatalf("statuses %v", statuses)
	}
	k := keyed(ten.Root)
	other := freshAddress(t)
	first := k.Post("/v1/contacts", map[string]any{"address": other, "label": "Once"}).Expect(t, http.StatusCreated).JSON(t)
	again := k.Post("/v1/contacts", map[string]any{"address": other, "label": "Once"}).Expect(t, http.StatusCreated)
	if again.Header.Get("Idempotent-Replayed") != "true" || again.JSON(t)["id"] != first["id"] {
		t.Fatalf("replay: %s", again.Body)
	}
	if got := ten.Root.Get("/v1/contacts").Expect(t, http.StatusOK).JSON(t); got["total"] != float64(2) {
		t.Fatalf("contacts: %v", got["total"])
	}
}

// TestTwoFactor_CodeAcceptedOnce: a TOTP code is accepted once (RFC 6238). A code seen by
// someone else after it approved one challenge cannot approve another, nor an earlier one of
// the same factor.
func TestTwoFactor_CodeAcceptedOnce(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten)
	putSettings(t, ten.Root, map[string]any{"approvalAboveUsd": "0"})
	_, secret := enroll(t, ten.Root)
	first := details(t, ten.Root.Post("/v1/payments", payTo(w, freshAddress(t), "2")).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED"))["challengeId"].(string)
	second := details(t, ten.Root.Post("/v1/payments", payTo(w, freshAddress(t), "3")).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED"))["challengeId"].(string)
	c := code(t, secret)
	ten.Root.Post("/v1/twofactor/challenges/"+first+"/verify", map[string]any{"code": c}).Expect(t, http.StatusOK)
	e := ten.Root.Post("/v1/twofactor/challenges/"+second+"/verify", map[string]any{"code": c}).ExpectError(t, http.StatusBadRequest, "TWOFA_INVALID_CODE")
	if details(t, e)["attemptsRemaining"] != float64(4) {
		t.Fatalf("a replayed code: %v", e)
	}
	ten.Root.Post("/v1/twofactor/challenges/"+second+"/verify", map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK)
}
