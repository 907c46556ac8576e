package twofactor

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

func TestSettings_NeedsApproval(t *testing.T) {
	ten := int64(10_000_000)
	for _, c := range []struct {
		s      Settings
		amount int64
		saved  bool
		want   bool
	}{
		{Settings{}, 1 << 40, false, false},
		{Settings{ApprovalAboveBaseUnits: &ten}, ten, true, false},
		{Settings{ApprovalAboveBaseUnits: &ten}, ten + 1, true, true},
		{Settings{ApproveNewPayees: true}, 1, true, false},
		{Settings{ApproveNewPayees: true}, 1, false, true},
		{Settings{RequireSavedPayees: true}, 1 << 40, false, false},
	} {
		if got := c.s.NeedsApproval(c.amount, c.saved); got != c.want {
			t.Errorf("%+v amount %d saved %v: %v", c.s, c.amount, c.saved, got)
		}
	}
}

func TestContact_CoolingOffRoundsUp(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := Contact{ID: "con_1", CreatedAt: t0}
	if e := c.CoolingOff(t0.Add(time.Hour-time.Millisecond), time.Hour); e == nil || e.Details["secondsRemaining"] != int64(1) {
		t.Fatalf("a millisecond before the end: %v", e)
	}
	if e := c.CoolingOff(t0.Add(time.Hour), time.Hour); e != nil {
		t.Fatalf("at the end: %v", e)
	}
}

func TestChallenge_Attempts(t *testing.T) {
	c := Challenge{Attempts: MaxAttempts + 2}
	if c.AttemptsRemaining() != 0 {
		t.Fatal(c.AttemptsRemaining())
	}
	if !(Challenge{ExpiresAt: time.Unix(10, 0)}).Expired(time.Unix(10, 0)) {
		t.Fatal("a challenge is expired at its expiresAt")
	}
}

// TestFactor_WrongActivationCode walks a PENDING factor's wrong codes row by row: each counts
// one attempt and answers TWOFA_INVALID_CODE with the attempts left; the MaxAttempts-th
// cancels the factor with TWOFA_TOO_MANY_ATTEMPTS.
func TestFactor_WrongActivationCode(t *testing.T) {
	f := Factor{ID: "fac_1", Status: FactorPending}
	for n := 1; n <= MaxAttempts; n++ {
		err := f.WrongActivationCode()
		wantCode, wantStatus := core.Code("TWOFA_INVALID_CODE"), FactorPending
		if n == MaxAttempts {
			wantCode, wantStatus = "TWOFA_TOO_MANY_ATTEMPTS", FactorCancelled
		}
		if err == nil || err.Code != wantCode || f.Status != wantStatus || f.Attempts != n || f.AttemptsRemaining() != MaxAttempts-n {
			t.Fatalf("wrong code %d: err %v, factor %+v", n, err, f)
		}
		if err.Details["attemptsRemaining"] != MaxAttempts-n || err.Details["factorId"] != "fac_1" {
			t.Fatalf("wrong code %d: details %v", n, err.Details)
		}
	}
}
