package api

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestLogging_JSONLinesWithoutSecrets: one JSON line per request with request id, route, status
// and latency; no API key secret, session token or invite token ever appears.
func TestLogging_JSONLinesWithoutSecrets(t *testing.T) {
	t.Parallel()
	var logs harness.SyncBuffer
	srv := harness.NewServerWithLog(t, &logs)
	ten := srv.NewTenant(t)
	inv := ten.Session.With("X-Request-Id", "log-test-1").Post("/v1/tenants/members", map[string]any{"email": "l@example.com"}).Expect(t, 201).JSON(t)
	srv.Client(t).WithKey(ten.RootKey+"x").Get("/v1/tenants/current").Expect(t, 401)

	out := logs.String()
	secrets := []string{strings.Split(ten.RootKey, "_")[3], inv["inviteToken"].(string)}
	for _, s := range secrets {
		if strings.Contains(out, s) {
			t.Fatalf("a secret appears in the logs")
		}
	}
	if strings.Contains(out, "eyJ") {
		t.Fatal("a session token appears in the logs")
	}
	found := false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var line map[string]any
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("log line is not JSON: %s", sc.Text())
		}
		if line["requestId"] == "log-test-1" {
			found = true
			if line["route"] != "/v1/tenants/members" || line["status"] != float64(201) || line["latencyMs"] == nil || line["principal"] == nil {
				t.Fatalf("request line lacks fields: %v", line)
			}
		}
	}
	if !found {
		t.Fatalf("no log line for the request id; logs:\n%s", out)
	}
}
