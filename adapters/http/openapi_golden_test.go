package http

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden OpenAPI documents under testdata/")

// goldenVersion is the info.version the golden documents were served with.
const goldenVersion = "0.0.0-golden"

// goldenFeatureSets are the deployments whose served documents are kept: every optional
// capability on (what the contract lists) and every one off (only the routes always served).
var goldenFeatureSets = map[string][]string{
	"openapi_all_features.json": contractFeatures,
	"openapi_no_features.json":  nil,
}

// TestOpenAPI_GoldenDocument: the document GET /v1/openapi.json serves is byte for byte the one
// served before the handlers were split per capability (issue #28): moving routes between
// handler types changes nothing a client sees. Regenerate with -update only for a deliberate
// change of the API.
func TestOpenAPI_GoldenDocument(t *testing.T) {
	for name, features := range goldenFeatureSets {
		t.Run(name, func(t *testing.T) {
			enabled := map[string]bool{}
			for _, f := range features {
				enabled[f] = true
			}
			s, err := New(Config{Store: nopStore{}, Version: goldenVersion, Capabilities: CapabilitiesConfig{Features: enabled}},
				nopServices(t), slog.New(slog.NewJSONHandler(io.Discard, nil)))
			if err != nil {
				t.Fatal(err)
			}
			resp, err := s.Fiber().Test(httptest.NewRequest("GET", "/v1/openapi.json", nil), -1)
			if err != nil {
				t.Fatal(err)
			}
			served, err := io.ReadAll(resp.Body)
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("GET /v1/openapi.json: %d %v", resp.StatusCode, err)
			}
			path := filepath.Join("testdata", name)
			if *updateGolden {
				if err := os.WriteFile(path, served, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			golden, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(served, golden) {
				t.Fatalf("the served document differs from %s: %s", path, firstDifference(served, golden))
			}
		})
	}
}

// firstDifference shows where two documents first differ, with some context around it.
func firstDifference(got, want []byte) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	from := max(i-120, 0)
	return fmt.Sprintf("at byte %d (lengths %d and %d)\n got: …%s…\nwant: …%s…", i, len(got), len(want),
		got[from:min(i+120, len(got))], want[from:min(i+120, len(want))])
}

// TestEndpoints_GoldenOrder: the endpoint table registers the same routes in the same order as
// before the handler split (Fiber tries routes in registration order), each with the same kind
// of handler (prepared or not), authentication, scopes and flags.
func TestEndpoints_GoldenOrder(t *testing.T) {
	enabled := map[string]bool{}
	for _, f := range contractFeatures {
		enabled[f] = true
	}
	s, err := New(Config{Store: nopStore{}, Capabilities: CapabilitiesConfig{Features: enabled}},
		nopServices(t), slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for _, r := range s.Endpoints() {
		fmt.Fprintf(&b, "%s %s auth=%d scopes=%v prepared=%t handler=%t sandbox=%t secondary=%t body=%t byID=%t agentConflict=%t secret=%v grants=%q\n",
			r.Method, r.Path, r.Auth, r.Scopes, r.Prepare != nil, r.Handler != nil, r.SandboxOnly, r.SecondaryErrors,
			r.SecondaryBody != nil, r.SecondaryByID, r.AgentSuspendedConflict, r.SecretFields, r.Grants)
	}
	path := filepath.Join("testdata", "endpoints.txt")
	if *updateGolden {
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	golden, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(b.Bytes(), golden) {
		t.Fatalf("the endpoint table differs from %s: %s", path, firstDifference(b.Bytes(), golden))
	}
}
