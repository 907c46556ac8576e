package timestamp

import (
	"testing"
	"time"
)

func TestFormat_FixedFractionSortsAsTime(t *testing.T) {
	whole := time.Date(2026, 12, 6, 1, 2, 3, 0, time.UTC)
	fraction := whole.Add(450 * time.Millisecond)
	if got := Format(fraction); got != "2026-12-06T01:02:03.450000Z" {
		t.Fatalf("Format: %q", got)
	}
	if a, b := Format(whole), Format(fraction); !(a < b) {
		t.Fatalf("%q sorts after %q", a, b)
	}
	if got := Format(whole.In(time.FixedZone("x", 3600))); got != "2026-12-06T01:02:03.000000Z" {
		t.Fatalf("not UTC: %q", got)
	}
}

func TestNormalizeJSON(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"id":"wal_1","createdAt":"2026-12-06T01:02:03.45Z"}`, `{"id":"wal_1","createdAt":"2026-12-06T01:02:03.450000Z"}`},
		{`{"expires_at":"2026-12-06T01:02:03Z","to":"2026-12-06T02:02:03+01:00"}`, `{"expires_at":"2026-12-06T01:02:03.000000Z","to":"2026-12-06T01:02:03.000000Z"}`},
		{`[{"at":"2026-12-06T01:02:03.123456789Z"}]`, `[{"at":"2026-12-06T01:02:03.123456Z"}]`},
		{`{"description":"2026-12-06T01:02:03Z","createdAt":null}`, `{"description":"2026-12-06T01:02:03Z","createdAt":null}`},
		{`{"metadata":{"shippedAt":"2026-12-06T01:02:03Z","x":"}\""},"updatedAt":"2026-12-06T01:02:03Z"}`, `{"metadata":{"shippedAt":"2026-12-06T01:02:03Z","x":"}\""},"updatedAt":"2026-12-06T01:02:03.000000Z"}`},
		{`{"createdAt":"not a time","note":"say \"createdAt\":\"2026-12-06T01:02:03Z\""}`, `{"createdAt":"not a time","note":"say \"createdAt\":\"2026-12-06T01:02:03Z\""}`},
		{`{"createdAt":"2026-12-06T01:02:03.000000Z"}`, `{"createdAt":"2026-12-06T01:02:03.000000Z"}`},
	} {
		if got := string(NormalizeJSON([]byte(tc.in))); got != tc.want {
			t.Errorf("%s:\n got %s\nwant %s", tc.in, got, tc.want)
		}
	}
}

func TestIsTimeKey(t *testing.T) {
	for name, want := range map[string]bool{"createdAt": true, "created_at": true, "asOf": true, "format": false, "chat": false, "FAt": false, "status": false} {
		if IsTimeKey(name) != want {
			t.Errorf("IsTimeKey(%q) = %t", name, !want)
		}
	}
}
