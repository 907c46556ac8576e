package checkout

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

func TestObserve_RowByRow(t *testing.T) {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	base := Checkout{ID: "chk_0000000000000000000000000a", TenantID: "ten_x", Environment: core.EnvTest, Amount: 10,
		DepositAddress: "0xabc", Status: StatusCreated, ExpiresAt: t0.Add(time.Hour)}
	before, after := t0, t0.Add(2*time.Hour)
	for _, tc := range []struct {
		name    string
		status  Status
		obs     Observation
		now     time.Time
		want    Status
		changed bool
		reason  string
	}{
		{"created, nothing seen", StatusCreated, Observation{}, before, StatusCreated, false, ""},
		{"created, seen unconfirmed", StatusCreated, Observation{Seen: 10}, before, StatusPending, true, ""},
		{"created, partly seen", StatusCreated, Observation{Seen: 3}, before, StatusPending, true, ""},
		{"created, confirmed in one pass", StatusCreated, Observation{Seen: 10, Confirmed: 10}, before, StatusCompleted, true, ""},
		{"pending, still unconfirmed", StatusPending, Observation{Seen: 10, Confirmed: 4}, before, StatusPending, false, ""},
		{"pending, confirmed", StatusPending, Observation{Seen: 10, Confirmed: 10}, before, StatusCompleted, true, ""},
		{"pending, overpaid and confirmed", StatusPending, Observation{Seen: 15, Confirmed: 15}, before, StatusCompleted, true, ""},
		{"created, expired unpaid", StatusCreated, Observation{}, after, StatusFailed, true, "expired"},
		{"pending, expired underpaid", StatusPending, Observation{Seen: 4, Confirmed: 4}, after, StatusFailed, true, "underpaid"},
		{"pending, expired but covered and still confirming", StatusPending, Observation{Seen: 10, Confirmed: 2}, after, StatusPending, false, ""},
		{"pending, expired then confirmed", StatusPending, Observation{Seen: 10, Confirmed: 10}, after, StatusCompleted, true, ""},
		{"completed, late funds", StatusCompleted, Observation{Seen: 20, Confirmed: 20}, after, StatusCompleted, false, ""},
		{"failed, late funds covering", StatusFailed, Observation{Seen: 10, Confirmed: 10}, after, StatusFailed, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := base
			c.Status = tc.status
			next, changed := c.Observe(tc.obs, tc.now)
			if next.Status != tc.want || changed != tc.changed || next.FailureReason != tc.reason {
				t.Fatalf("got %s changed=%v reason=%q, want %s changed=%v reason=%q", next.Status, changed, next.FailureReason, tc.want, tc.changed, tc.reason)
			}
			if next.Status == StatusCompleted && changed && next.CompletedAt == nil {
				t.Fatal("completed without completedAt")
			}
			if next.Received < tc.obs.Seen {
				t.Fatalf("received %d below seen %d", next.Received, tc.obs.Seen)
			}
		})
	}
}

func TestSalt_DerivedFromTheID(t *testing.T) {
	a, again := Salt("chk_a"), Salt("chk_"+"a")
	if a == Salt("chk_b") || a != again || a == ([32]byte{}) {
		t.Fatal("salt is not a function of the id")
	}
}
