package twofa

import (
	"net/http"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func factorVerifyPath(f map[string]any) string {
	return "/v1/twofactor/factors/" + f["id"].(string) + "/verify"
}

// pendingFactor enrolls a factor of c's tenant without activating it.
func pendingFactor(t *testing.T, c *harness.Client) (map[string]any, string) {
	t.Helper()
	f := c.Post("/v1/twofactor/factors", map[string]any{"label": "new phone"}).Expect(t, http.StatusCreated).JSON(t)
	if f["status"] != "PENDING" {
		t.Fatalf("enrolment: %v", f)
	}
	return f, f["secret"].(string)
}

func factorStatuses(t *testing.T, c *harness.Client) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range c.Get("/v1/twofactor/factors").Expect(t, http.StatusOK).JSON(t)["factors"].([]any) {
		m := f.(map[string]any)
		out[m["id"].(string)] = m["status"].(string)
	}
	return out
}

// TestFactor_ActivationAttemptsAreBounded: wrong activation codes count down in
// details.attemptsRemaining, the fifth cancels the PENDING factor (TWOFA_TOO_MANY_ATTEMPTS),
// the right code is refused from then on, and enrolling again replaces the cancelled factor
// with one that activates.
func TestFactor_ActivationAttemptsAreBounded(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	f, secret := pendingFactor(t, ten.Root)
	wrong := wrongCode(t, secret)
	for want := 4; want >= 1; want-- {
		e := ten.Root.Post(factorVerifyPath(f), map[string]any{"code": wrong}).ExpectError(t, http.StatusBadRequest, "TWOFA_INVALID_CODE")
		if d := details(t, e); d["attemptsRemaining"] != float64(want) || d["factorId"] != f["id"] {
			t.Fatalf("wrong code %d: details %v, want attemptsRemaining %d", 5-want, d, want)
		}
	}
	e := ten.Root.Post(factorVerifyPath(f), map[string]any{"code": wrong}).ExpectError(t, http.StatusForbidden, "TWOFA_TOO_MANY_ATTEMPTS")
	if d := details(t, e); d["attemptsRemaining"] != float64(0) {
		t.Fatalf("fifth wrong code: details %v", d)
	}
	ten.Root.Post(factorVerifyPath(f), map[string]any{"code": code(t, secret)}).ExpectError(t, http.StatusForbidden, "TWOFA_TOO_MANY_ATTEMPTS")
	if got := factorStatuses(t, ten.Root); got[f["id"].(string)] != "CANCELLED" || len(got) != 1 {
		t.Fatalf("factors after the limit: %v", got)
	}

	// A cancelled factor approves nothing: a protected payment finds no active factor.
	w := newWallet(t, ten)
	putSettings(t, ten.Root, map[string]any{"approveNewPayees": true})
	ten.Root.Post("/v1/payments", payTo(w, freshAddress(t), "2")).ExpectError(t, http.StatusForbidden, "TWOFA_NOT_ENROLLED")

	g, secret2 := pendingFactor(t, ten.Root)
	if got := factorStatuses(t, ten.Root); len(got) != 1 || got[g["id"].(string)] != "PENDING" {
		t.Fatalf("factors after enrolling again: %v (the cancelled one is removed)", got)
	}
	ten.Root.Post(factorVerifyPath(f), map[string]any{"code": code(t, secret)}).ExpectError(t, http.StatusNotFound, "TWOFA_FACTOR_NOT_FOUND")
	if got := ten.Root.Post(factorVerifyPath(g), map[string]any{"code": code(t, secret2)}).Expect(t, http.StatusOK).JSON(t); got["status"] != "ACTIVE" {
		t.Fatalf("new factor after verify: %v", got)
	}
}

// TestFactor_CorrectCodeBeforeTheLimit: four wrong codes leave one attempt, and the right code
// then activates the factor. An ACTIVE factor compares no code any more (INVALID_STATE for a
// right and a wrong one alike), so its verify route is no guessing oracle.
func TestFactor_CorrectCodeBeforeTheLimit(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	f, secret := pendingFactor(t, ten.Root)
	wrong := wrongCode(t, secret)
	for range 4 {
		ten.Root.Post(factorVerifyPath(f), map[string]any{"code": wrong}).ExpectError(t, http.StatusBadRequest, "TWOFA_INVALID_CODE")
	}
	got := ten.Root.Post(factorVerifyPath(f), map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK).JSON(t)
	if got["status"] != "ACTIVE" || got["verifiedAt"] == nil {
		t.Fatalf("factor after the right code: %v", got)
	}
	for range 6 {
		ten.Root.Post(factorVerifyPath(f), map[string]any{"code": wrong}).ExpectError(t, http.StatusConflict, "INVALID_STATE")
	}
	ten.Root.Post(factorVerifyPath(f), map[string]any{"code": code(t, secret)}).ExpectError(t, http.StatusConflict, "INVALID_STATE")
	if got := factorStatuses(t, ten.Root); got[f["id"].(string)] != "ACTIVE" {
		t.Fatalf("factors: %v", got)
	}
}

// TestFactor_ParallelWrongActivationCodes: ten wrong codes sent at once are counted one by one
// under the factor's row lock: exactly four answer TWOFA_INVALID_CODE and six
// TWOFA_TOO_MANY_ATTEMPTS, so no more than five codes are ever compared; the right code is
// refused afterwards.
func TestFactor_ParallelWrongActivationCodes(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	f, secret := pendingFactor(t, ten.Root)
	wrong := wrongCode(t, secret)
	var wg sync.WaitGroup
	codes := make([]string, 10)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			codes[i], _ = ten.Root.Post(factorVerifyPath(f), map[string]any{"code": wrong}).JSON(t)["code"].(string)
		}(i)
	}
	wg.Wait()
	count := map[string]int{}
	for _, c := range codes {
		count[c]++
	}
	if count["TWOFA_INVALID_CODE"] != 4 || count["TWOFA_TOO_MANY_ATTEMPTS"] != 6 {
		t.Fatalf("answers: %v", count)
	}
	ten.Root.Post(factorVerifyPath(f), map[string]any{"code": code(t, secret)}).ExpectError(t, http.StatusForbidden, "TWOFA_TOO_MANY_ATTEMPTS")
}

// TestFactor_ParallelGuessesWithTheRightCode: among parallel wrong guesses, the right code
// activates the factor only if it is compared before the fifth wrong one; either way the
// factor ends ACTIVE or CANCELLED, and at most five wrong codes were answered as such.
func TestFactor_ParallelGuessesWithTheRightCode(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	f, secret := pendingFactor(t, ten.Root)
	wrong, right := wrongCode(t, secret), code(t, secret)
	var wg sync.WaitGroup
	codes := make([]string, 10)
	for i := range codes {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			body := map[string]any{"code": wrong}
			if i == 5 {
				body["code"] = right
			}
			r := ten.Root.Post(factorVerifyPath(f), body)
			if r.Status == http.StatusOK {
				codes[i] = "OK"
				return
			}
			codes[i], _ = r.JSON(t)["code"].(string)
		}(i)
	}
	wg.Wait()
	count := map[string]int{}
	for _, c := range codes {
		count[c]++
	}
	status := factorStatuses(t, ten.Root)[f["id"].(string)]
	switch {
	case count["OK"] == 1 && status == "ACTIVE" && count["TWOFA_INVALID_CODE"] <= 4 && count["TWOFA_INVALID_CODE"]+count["INVALID_STATE"] == 9:
	case count["OK"] == 0 && status == "CANCELLED" && count["TWOFA_INVALID_CODE"] == 4 && count["TWOFA_TOO_MANY_ATTEMPTS"] == 6:
	default:
		t.Fatalf("answers %v, factor %s", count, status)
	}
}
