package twofa

import (
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// stepUpSettings changes the settings of a tenant with an active factor: the PUT is refused
// TWOFA_REQUIRED with a challenge bound to the change, a code satisfies it, and the same PUT
// with twofaChallengeId applies it.
func stepUpSettings(t *testing.T, c *harness.Client, secret string, body map[string]any) map[string]any {
	t.Helper()
	refused := c.Do(http.MethodPut, "/v1/twofactor/settings", body).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED")
	chID := details(t, refused)["challengeId"].(string)
	c.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK)
	return c.Do(http.MethodPut, "/v1/twofactor/settings", withChallenge(body, chID)).Expect(t, http.StatusOK).JSON(t)
}

// TestStepUp_SettingsNeedAChallengeBoundToTheChange: with an active factor, switching
// protection off needs a satisfied challenge, the challenge approves exactly the change it was
// made for, and a refused change leaves the settings as they were.
func TestStepUp_SettingsNeedAChallengeBoundToTheChange(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	putSettings(t, ten.Root, map[string]any{"approvalAboveUsd": "10", "approveNewPayees": true})
	_, secret := enroll(t, ten.Root)

	off := map[string]any{"approveNewPayees": false, "requireSavedPayees": false, "approvalAboveUsd": nil}
	refused := ten.Root.Do(http.MethodPut, "/v1/twofactor/settings", off).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED")
	d := details(t, refused)
	chID := d["challengeId"].(string)
	if change, ok := d["change"].(map[string]any); !ok || change["kind"] != "twofactor_settings" {
		t.Fatalf("the refusal does not describe the change: %v", d)
	}
	if got := ten.Root.Get("/v1/twofactor/settings").JSON(t); got["approvalAboveUsd"] != "10" || got["approveNewPayees"] != true {
		t.Fatalf("a refused change applied: %v", got)
	}
	// Not yet satisfied: not redeemable.
	ten.Root.Do(http.MethodPut, "/v1/twofactor/settings", withChallenge(off, chID)).ExpectError(t, http.StatusForbidden, "TWOFA_CHALLENGE_NOT_REDEEMABLE")
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK)
	// Bound to the change: another change with the same challenge is refused.
	other := map[string]any{"approveNewPayees": false, "approvalAboveUsd": "1000"}
	ten.Root.Do(http.MethodPut, "/v1/twofactor/settings", withChallenge(other, chID)).ExpectError(t, http.StatusForbidden, "TWOFA_BINDING_MISMATCH")
	got := ten.Root.Do(http.MethodPut, "/v1/twofactor/settings", withChallenge(off, chID)).Expect(t, http.StatusOK).JSON(t)
	if got["approvalAboveUsd"] != nil || got["approveNewPayees"] != false {
		t.Fatalf("settings after the approved change: %v", got)
	}
	// Used once.
	ten.Root.Do(http.MethodPut, "/v1/twofactor/settings", withChallenge(off, chID)).ExpectError(t, http.StatusForbidden, "TWOFA_CHALLENGE_NOT_REDEEMABLE")
}

// TestStepUp_AgentKeysNeverChangeSecuritySettings: an agent key minted with every scope it can
// hold cannot switch two-factor off, enroll or remove a factor, whatever the tenant's factors.
func TestStepUp_AgentKeysNeverChangeSecuritySettings(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	agentID := ten.Root.Post("/v1/agents", map[string]any{"name": "bot"}).Expect(t, http.StatusCreated).JSON(t)["id"].(string)
	key := ten.Root.Post("/v1/agents/"+agentID+"/keys", map[string]any{"name": "k", "scopes": []string{"*"}}).Expect(t, http.StatusCreated).JSON(t)
	for _, s := range key["scopes"].([]any) {
		if s == "twofactor:manage" || s == "members:manage" {
			t.Fatalf("an agent key holds %s", s)
		}
	}
	bot := env().Client(t).WithKey(key["key"].(string))
	putSettings(t, ten.Root, map[string]any{"approveNewPayees": true})
	bot.Do(http.MethodPut, "/v1/twofactor/settings", map[string]any{"approveNewPayees": false}).ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	bot.Post("/v1/twofactor/factors", map[string]any{"label": "mine"}).ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	f, _ := enroll(t, ten.Root)
	bot.Do(http.MethodDelete, "/v1/twofactor/factors/"+f["id"].(string), nil).ExpectError(t, http.StatusForbidden, "INSUFFICIENT_SCOPE")
	if got := ten.Root.Get("/v1/twofactor/settings").JSON(t); got["approveNewPayees"] != true {
		t.Fatalf("an agent changed the settings: %v", got)
	}
}

// TestStepUp_NewAndRemovedFactors: beside an active factor, enrolling another or removing one
// needs a challenge bound to that enrollment or removal; the first factor needs none.
func TestStepUp_NewAndRemovedFactors(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	first, secret := enroll(t, ten.Root)

	refused := ten.Root.Post("/v1/twofactor/factors", map[string]any{"label": "intruder"}).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED")
	chID := details(t, refused)["challengeId"].(string)
	if n := len(ten.Root.Get("/v1/twofactor/factors").JSON(t)["factors"].([]any)); n != 1 {
		t.Fatalf("a refused enrollment created a factor: %d factors", n)
	}
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK)
	ten.Root.Post("/v1/twofactor/factors", map[string]any{"label": "other label", "twofaChallengeId": chID}).ExpectError(t, http.StatusForbidden, "TWOFA_BINDING_MISMATCH")
	second := ten.Root.Post("/v1/twofactor/factors", map[string]any{"label": "intruder", "twofaChallengeId": chID}).Expect(t, http.StatusCreated).JSON(t)
	if second["status"] != "PENDING" {
		t.Fatalf("second factor: %v", second)
	}

	path := "/v1/twofactor/factors/" + first["id"].(string)
	refused = ten.Root.Do(http.MethodDelete, path, nil).ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED")
	delID := details(t, refused)["challengeId"].(string)
	ten.Root.Do(http.MethodDelete, path+"?twofaChallengeId="+chID, nil).ExpectError(t, http.StatusForbidden, "TWOFA_CHALLENGE_NOT_REDEEMABLE")
	ten.Root.Post("/v1/twofactor/challenges/"+delID+"/verify", map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK)
	ten.Root.Do(http.MethodDelete, path+"?twofaChallengeId="+delID, nil).Expect(t, http.StatusOK)
	// No active factor is left: removing the pending one needs nothing, and another tenant's is not found.
	other := env().NewTenant(t)
	other.Root.Do(http.MethodDelete, "/v1/twofactor/factors/"+second["id"].(string), nil).ExpectError(t, http.StatusNotFound, "TWOFA_FACTOR_NOT_FOUND")
	ten.Root.Do(http.MethodDelete, "/v1/twofactor/factors/"+second["id"].(string), nil).Expect(t, http.StatusOK)
	if n := len(ten.Root.Get("/v1/twofactor/factors").JSON(t)["factors"].([]any)); n != 0 {
		t.Fatalf("%d factors left", n)
	}
}

// TestStepUp_DormantFactorNeedsStepUpToActivate: a factor enrolled while the tenant had no
// protection and left PENDING cannot be activated, once another factor is ACTIVE, without a
// challenge bound to that activation: the activation answers TWOFA_REQUIRED and the factor
// stays PENDING (so it could not approve switching two-factor off); with the challenge
// satisfied by the active factor it activates.
func TestStepUp_DormantFactorNeedsStepUpToActivate(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	dormant := ten.Root.Post("/v1/twofactor/factors", map[string]any{"label": "drawer"}).Expect(t, http.StatusCreated).JSON(t)
	dormantID, dormantSecret := dormant["id"].(string), dormant["secret"].(string)
	putSettings(t, ten.Root, map[string]any{"approveNewPayees": true})
	_, secret := enroll(t, ten.Root)

	refused := ten.Root.Post("/v1/twofactor/factors/"+dormantID+"/verify", map[string]any{"code": code(t, dormantSecret)}).
		ExpectError(t, http.StatusForbidden, "TWOFA_REQUIRED")
	d := details(t, refused)
	if change, ok := d["change"].(map[string]any); !ok || change["kind"] != "twofactor_factor_activate" {
		t.Fatalf("the refusal does not describe the activation: %v", d)
	}
	chID := d["challengeId"].(string)
	for _, f := range ten.Root.Get("/v1/twofactor/factors").Expect(t, http.StatusOK).JSON(t)["factors"].([]any) {
		if f.(map[string]any)["id"] == dormantID && f.(map[string]any)["status"] != "PENDING" {
			t.Fatalf("the dormant factor changed without step-up: %v", f)
		}
	}
	// The dormant factor's own code cannot approve its activation: only an ACTIVE factor can.
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, dormantSecret)}).
		ExpectError(t, http.StatusBadRequest, "TWOFA_INVALID_CODE")
	ten.Root.Post("/v1/twofactor/challenges/"+chID+"/verify", map[string]any{"code": code(t, secret)}).Expect(t, http.StatusOK)
	got := ten.Root.Post("/v1/twofactor/factors/"+dormantID+"/verify", map[string]any{"code": code(t, dormantSecret), "twofaChallengeId": chID}).
		Expect(t, http.StatusOK).JSON(t)
	if got["status"] != "ACTIVE" {
		t.Fatalf("after step-up: %v", got)
	}
}
