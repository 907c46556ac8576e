package twofactor

import (
	"testing"
	"time"
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
