package harness

import (
	"net/url"
	"testing"
)

// EventsOf lists, newest first, the caller's events of one type (or a family, "card.*") whose
// data.id is resourceID, from GET /v1/events.
func (c *Client) EventsOf(t testing.TB, typ, resourceID string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, raw := range c.Get("/v1/events?take=100&type="+url.QueryEscape(typ)).Expect(t, 200).JSON(t)["events"].([]any) {
		e := raw.(map[string]any)
		if data, _ := e["data"].(map[string]any); data["id"] == resourceID {
			out = append(out, e)
		}
	}
	return out
}

// OneEventOf is the single event of typ about resourceID: it fails the test unless there is
// exactly one. It answers the event's data.
func (c *Client) OneEventOf(t testing.TB, typ, resourceID string) map[string]any {
	t.Helper()
	got := c.EventsOf(t, typ, resourceID)
	if len(got) != 1 {
		t.Fatalf("%d %s events about %s, want exactly 1: %v", len(got), typ, resourceID, got)
	}
	return got[0]["data"].(map[string]any)
}
