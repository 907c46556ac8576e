package twofa

import (
	"net/http"
	"regexp"
	"strconv"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// newChallenge makes a step-up challenge by asking for a settings change (TWOFA_REQUIRED).
func newChallenge(t *testing.T, c *harness.Client) string {
	t.Helper()
	refused := c.Do(http.MethodPut, "/v1/twofactor/settings", map[string]any{"approveNewPayees": false}).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED")
	return details(t, refused)["challengeId"].(string)
}

// TestBudget_WrongCodesAcrossChallengesLockVerification: each challenge takes five wrong codes,
// but the tenant's budget spans challenges: the tenth wrong code within fifteen minutes, on a
// third challenge, answers 429 with Retry-After, records a twofactor.locked event, and from then
// on even the right code on a fresh challenge is refused without being compared, so the
// challenge stays PENDING. Another tenant is not affected.
func TestBudget_WrongCodesAcrossChallengesLockVerification(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	putSettings(t, ten.Root, map[string]any{"approveNewPayees": true})
	_, secret := enroll(t, ten.Root)
	wrong := wrongCode(t, secret)

	first := newChallenge(t, ten.Root)
	for i := 0; i < 4; i++ {
		ten.Root.Post("/v1/twofactor/challenges/"+first+"/verify", map[string]any{"code": wrong}).ExpectError(t, http.StatusBadRequest, "TWOFA_INVALID_CODE")
	}
	ten.Root.Post("/v1/twofactor/challenges/"+first+"/verify", map[string]any{"code": wrong}).ExpectError(t, http.StatusForbidden, "TWOFA_TOO_MANY_ATTEMPTS")
	second := newChallenge(t, ten.Root)
	for i := 0; i < 4; i++ {
		ten.Root.Post("/v1/twofactor/challenges/"+second+"/verify", map[string]any{"code": wrong}).ExpectError(t, http.StatusBadRequest, "TWOFA_INVALID_CODE")
	}
	third := newChallenge(t, ten.Root)
	r := ten.Root.Post("/v1/twofactor/challenges/"+third+"/verify", map[string]any{"code": wrong})
	m := r.ExpectError(t, http.StatusTooManyRequests, "RATE_LIMITED")
	retry, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || retry < 800 || retry > 900 {
		t.Fatalf("Retry-After %q, want about 15 minutes; body %v", r.Header.Get("Retry-After"), m)
	}
	if details(t, m)["lockedUntil"] == nil {
		t.Fatalf("details: %v", m)
	}

	fresh := newChallenge(t, ten.Root)
	ten.Root.Post("/v1/twofactor/challenges/"+fresh+"/verify", map[string]any{"code": code(t, secret)}).ExpectError(t, http.StatusTooManyRequests, "RATE_LIMITED")
	ten.Root.Do(http.MethodPut, "/v1/twofactor/settings", withChallenge(map[string]any{"approveNewPayees": false}, fresh)).
		ExpectError(t, http.StatusForbidden, "TWOFA_CHALLENGE_NOT_REDEEMABLE")

	events := ten.Root.Get("/v1/events?type=twofactor.locked").Expect(t, http.StatusOK).JSON(t)["events"].([]any)
	if len(events) == 0 {
		t.Fatal("no twofactor.locked event")
	}
	data := events[0].(map[string]any)["data"].(map[string]any)
	if data["lockedUntil"] == nil || data["subject"] == nil {
		t.Fatalf("event data: %v", data)
	}

	// The gauge the CorridorTwoFactorLocked alert reads counts the lock.
	harness.Eventually(t, "corridor_twofactor_locked counts the lock", func() bool {
		return lockedGauge.FindStringSubmatch(env().Metrics(t)) != nil
	})

	other := env().NewTenant(t)
	enroll(t, other.Root)
}

// lockedGauge matches a TEST locked gauge of at least 1.
var lockedGauge = regexp.MustCompile(`(?m)^corridor_twofactor_locked\{environment="TEST"\} [1-9]`)

// TestBudget_WrongActivationCodesSpendTheBudgetToo: activation codes of PENDING factors are
// guesses as well; enrolling new factors does not reset the count.
func TestBudget_WrongActivationCodesSpendTheBudgetToo(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	var lastID, lastSecret string
	spent := 0
	for spent < 9 {
		f := ten.Root.Post("/v1/twofactor/factors", map[string]any{"label": "try"}).Expect(t, http.StatusCreated).JSON(t)
		lastID, lastSecret = f["id"].(string), f["secret"].(string)
		for i := 0; i < 4 && spent < 9; i++ {
			ten.Root.Post("/v1/twofactor/factors/"+lastID+"/verify", map[string]any{"code": wrongCode(t, lastSecret)}).ExpectError(t, http.StatusBadRequest, "TWOFA_INVALID_CODE")
			spent++
		}
	}
	ten.Root.Post("/v1/twofactor/factors/"+lastID+"/verify", map[string]any{"code": wrongCode(t, lastSecret)}).ExpectError(t, http.StatusTooManyRequests, "RATE_LIMITED")
	// Locked: the right code is not compared either.
	ten.Root.Post("/v1/twofactor/factors/"+lastID+"/verify", map[string]any{"code": code(t, lastSecret)}).ExpectError(t, http.StatusTooManyRequests, "RATE_LIMITED")
}

// TestBudget_ChallengeCreationIsLimited: a tenant creates at most 60 challenges per environment
// within fifteen minutes; the next request that would create one answers 429 with Retry-After
// and creates nothing.
func TestBudget_ChallengeCreationIsLimited(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	putSettings(t, ten.Root, map[string]any{"approveNewPayees": true})
	enroll(t, ten.Root)
	for i := 0; i < 60; i++ {
		newChallenge(t, ten.Root)
	}
	r := ten.Root.Do(http.MethodPut, "/v1/twofactor/settings", map[string]any{"approveNewPayees": false})
	r.ExpectError(t, http.StatusTooManyRequests, "RATE_LIMITED")
	if r.Header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}

// TestBudget_SharedByReplicas: the failure budget lives in the database, so two servers on one
// database (two replicas) spend one budget: five wrong codes through replica A and five through
// replica B lock verification, and the lock answers 429 on both.
func TestBudget_SharedByReplicas(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	putSettings(t, ten.Root, map[string]any{"approveNewPayees": true})
	_, secret := enroll(t, ten.Root)
	wrong := wrongCode(t, secret)
	b := harness.NewServer(t, nil).Client(t).WithKey(ten.RootKey)

	first := newChallenge(t, ten.Root)
	for i := 0; i < 4; i++ {
		ten.Root.Post("/v1/twofactor/challenges/"+first+"/verify", map[string]any{"code": wrong}).ExpectError(t, http.StatusBadRequest, "TWOFA_INVALID_CODE")
	}
	second := newChallenge(t, b)
	for i := 0; i < 5; i++ {
		b.Post("/v1/twofactor/challenges/"+second+"/verify", map[string]any{"code": wrong})
	}
	third := newChallenge(t, ten.Root)
	ten.Root.Post("/v1/twofactor/challenges/"+third+"/verify", map[string]any{"code": wrong}).ExpectError(t, http.StatusTooManyRequests, "RATE_LIMITED")
	fresh := newChallenge(t, b)
	b.Post("/v1/twofactor/challenges/"+fresh+"/verify", map[string]any{"code": code(t, secret)}).ExpectError(t, http.StatusTooManyRequests, "RATE_LIMITED")
}
