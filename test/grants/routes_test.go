package grants

import (
	"net/http"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestGrants_RouteScopesEnforcedBeforeTheHandler walks the served document: for every operation
// that declares x-required-scopes, a key lacking them is refused 403 INSUFFICIENT_SCOPE naming
// one of them, before the handler reads a path id or a body (the malformed body would otherwise
// answer 400, an unknown id 404). So a route whose use case forgot its own check is still closed.
// An operation without scopes must say why it is public (x-corridor-public).
func TestGrants_RouteScopesEnforcedBeforeTheHandler(t *testing.T) {
	e := env()
	ten := e.NewTenant(t)
	statusOnly := e.Client(t).WithKey(e.NewKey(t, ten.Session, map[string]any{"name": "status only", "scopes": []string{"status:read"}}))
	identityOnly := e.Client(t).WithKey(e.NewKey(t, ten.Session, map[string]any{"name": "identity only", "scopes": []string{"identity:read"}}))
	var doc struct {
		Paths map[string]map[string]map[string]any `json:"paths"`
	}
	e.Client(t).Get("/v1/openapi.json").Expect(t, 200).Decode(t, &doc)
	param := regexp.MustCompile(`\{[^}]+\}`)
	var paths []string
	for p := range doc.Paths {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	checked := 0
	for _, path := range paths {
		for method, op := range doc.Paths[path] {
			method = strings.ToUpper(method)
			raw, ok := op["x-required-scopes"].([]any)
			if !ok || len(raw) == 0 {
				if reason, _ := op["x-corridor-public"].(string); reason == "" {
					t.Errorf("%s %s declares no scope and no reason to be public", method, path)
				}
				continue
			}
			var scopes []string
			for _, s := range raw {
				scopes = append(scopes, s.(string))
			}
			caller := statusOnly
			if slices.Contains(scopes, "status:read") {
				caller = identityOnly
			}
			url := param.ReplaceAllString(path, "x_unknown")
			var r *harness.Response
			if method == http.MethodGet || method == http.MethodDelete {
				r = caller.Do(method, url, nil)
			} else {
				r = caller.Do(method, url, `{"malformed":`)
			}
			checked++
			code, required := refusal(t, r)
			if r.Status != http.StatusForbidden || code != "INSUFFICIENT_SCOPE" || !slices.Contains(scopes, required) {
				t.Errorf("%s %s without %v: %d %s (required %q), want 403 INSUFFICIENT_SCOPE naming one of them; body %s",
					method, path, scopes, r.Status, code, required, r.Body)
			}
		}
	}
	if checked < 80 {
		t.Fatalf("only %d operations declare scopes", checked)
	}
}

// refusal reads the code and details.required of an error in either surface's shape.
func refusal(t *testing.T, r *harness.Response) (code, required string) {
	t.Helper()
	m := r.JSON(t)
	if inner, ok := m["error"].(map[string]any); ok {
		m = inner
	}
	code, _ = m["code"].(string)
	if d, ok := m["details"].(map[string]any); ok {
		required, _ = d["required"].(string)
	}
	return strings.ToUpper(code), required
}
