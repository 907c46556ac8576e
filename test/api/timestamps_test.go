package api

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"
)

// apiInstant is the API's one form of an instant: UTC, a fixed six-digit fraction.
var apiInstant = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$`)

// instants walks a JSON answer and returns every string that reads as an RFC 3339 instant,
// with the path that holds it. The rule is by value, not by name: whatever a field is called,
// an instant the service wrote must be in the API's form.
func instants(node any, path string, out map[string]string) {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			instants(v, path+"."+k, out)
		}
	case []any:
		for _, v := range n {
			instants(v, path+"[]", out)
		}
	case string:
		if _, err := time.Parse(time.RFC3339Nano, n); err == nil {
			out[path] = n
		}
	}
}

// TestTimestamps_EveryInstantHasTheFixedFraction: in several answers (a key whose expiry has a
// whole second, the keys list, the members list, the events list, the ledger's
// trial balance with asOf) every instant is written with the six-digit fraction in UTC, so
// string order is time order; an instant with no fraction is not shortened.
func TestTimestamps_EveryInstantHasTheFixedFraction(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	whole := time.Now().Add(48 * time.Hour).UTC().Truncate(time.Second)
	key := ten.Root.Post("/v1/api-keys", map[string]any{"name": "dated", "scopes": []string{"payments:read"}, "expiresAt": whole.Format(time.RFC3339)}).Expect(t, 201).JSON(t)
	if key["expiresAt"] != whole.Format("2006-01-02T15:04:05")+".000000Z" {
		t.Fatalf("expiresAt %v: a whole second is written without its zero fraction", key["expiresAt"])
	}
	// A second key, with a sub-second expiry whose fraction ends in zeros.
	tenths := whole.Add(-time.Hour + 400*time.Millisecond)
	second := ten.Root.Post("/v1/api-keys", map[string]any{"name": "tenths", "scopes": []string{"payments:read"}, "expiresAt": tenths.Format(time.RFC3339Nano)}).Expect(t, 201).JSON(t)
	if second["expiresAt"] != tenths.Format("2006-01-02T15:04:05")+".400000Z" {
		t.Fatalf("expiresAt %v: a fraction ending in zeros is shortened", second["expiresAt"])
	}
	answers := map[string]any{"POST /v1/api-keys": key, "POST /v1/api-keys (tenths)": second}
	for _, path := range []string{"/v1/api-keys", "/v1/members", "/v1/events", "/v1/ledger/trial-balance"} {
		r := ten.Root.Get(path)
		if r.Status == 404 || r.Status == 501 || r.Status == 503 {
			continue // a feature this deployment does not serve
		}
		var body any
		if err := json.Unmarshal(r.Expect(t, 200).Body, &body); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		answers["GET "+path] = body
	}
	seen := 0
	for route, body := range answers {
		found := map[string]string{}
		instants(body, "", found)
		for path, value := range found {
			seen++
			if !apiInstant.MatchString(value) {
				t.Errorf("%s: %s = %q is not in the API's form (UTC, six fraction digits)", route, path, value)
			}
		}
	}
	if seen < 7 {
		t.Fatalf("only %d instants in %d answers: the test reads too little", seen, len(answers))
	}
}
