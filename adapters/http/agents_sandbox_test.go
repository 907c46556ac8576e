package http

import (
	"io"
	"log/slog"
	"strings"
	"testing"
)

// TestEndpoints_NoLiveAgentCredential: agents are sandbox only, so no route mints, provisions or
// reconfigures an agent in LIVE: every route under /v1/agents is SandboxOnly (LIVE answers 403
// SANDBOX_ONLY before the handler), and no route outside it names agent keys. A LIVE agent
// credential therefore has no path to exist; a route added without the flag fails here.
func TestEndpoints_NoLiveAgentCredential(t *testing.T) {
	enabled := map[string]bool{}
	for _, f := range contractFeatures {
		enabled[f] = true
	}
	s, err := New(Config{Store: nopStore{}, Capabilities: CapabilitiesConfig{Features: enabled}},
		nopServices(t), slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	agentRoutes := 0
	for _, r := range s.Endpoints() {
		if strings.HasPrefix(r.Path, "/v1/agents") {
			agentRoutes++
			if !r.SandboxOnly {
				t.Errorf("%s %s serves agents in LIVE: mark it SandboxOnly", r.Method, r.Path)
			}
			continue
		}
		if strings.Contains(r.Path, "agent") && strings.Contains(r.Path, "key") {
			t.Errorf("%s %s mints agent keys outside /v1/agents", r.Method, r.Path)
		}
	}
	if agentRoutes == 0 {
		t.Fatal("no /v1/agents route in the table: the test no longer sees the agents' routes")
	}
}
