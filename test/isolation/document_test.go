package isolation

import (
	"regexp"
	"sort"
	"strings"
	"testing"
)

// operation is one operation of the served document, as the matrix needs it.
type operation struct {
	Method, Path string
	Auth         string            // x-corridor-auth: public, optional, tenant, operator
	Scopes       []string          // x-required-scopes
	SandboxOnly  bool              // x-corridor-sandbox-only
	Resources    map[string]string // path parameter → x-corridor-resource
	HasBody      bool
	// ErrorShape is x-corridor-error-shape: "secondary" for the secondary surface's routes,
	// whose refusals the matrix reads through their canonical code (asEnvelope).
	ErrorShape string
}

func (o operation) String() string { return o.Method + " " + o.Path }

// publicOperations and optionalOperations are the allow-lists: the document may mark these,
// and only these, as callable without a credential. A route that becomes public by accident
// fails the matrix.
var publicOperations = []string{
	"GET /healthz", "GET /readyz", "GET /v1/openapi.json",
	"GET /v1/claims/{claimToken}", "POST /v1/claims/{claimToken}/phone-code",
	"POST /v1/claims/{claimToken}/phone-code/verify", "POST /v1/providers/{provider}/webhooks",
	"GET /v1/invoices/public/{id}",
	// The hosted payment page of a checkout: the chk_ id is its key (docs/checkout.md).
	"GET /pay/{id}", "GET /pay/{id}/status", "GET /pay/{id}/qr.png",
	"GET /checkout-assets/checkout.js", "GET /checkout-assets/checkout.css",
}

var optionalOperations = []string{"GET /v1/capabilities", "POST /v1/tenants/members/accept"}

// operations reads every operation from GET /v1/openapi.json.
func operations(t *testing.T) []operation {
	t.Helper()
	doc := env().Client(t).Get("/v1/openapi.json").Expect(t, 200).JSON(t)
	var out []operation
	for path, rawItem := range doc["paths"].(map[string]any) {
		for method, rawOp := range rawItem.(map[string]any) {
			op := rawOp.(map[string]any)
			o := operation{Method: strings.ToUpper(method), Path: path, Resources: map[string]string{}}
			o.Auth, _ = op["x-corridor-auth"].(string)
			if o.Auth == "" {
				t.Fatalf("%s %s does not say who may call it (x-corridor-auth)", o.Method, path)
			}
			for _, s := range asSlice(op["x-required-scopes"]) {
				o.Scopes = append(o.Scopes, s.(string))
			}
			o.SandboxOnly, _ = op["x-corridor-sandbox-only"].(bool)
			o.ErrorShape, _ = op["x-corridor-error-shape"].(string)
			_, o.HasBody = op["requestBody"]
			for _, raw := range asSlice(op["parameters"]) {
				p := raw.(map[string]any)
				if p["in"] == "path" {
					resource, _ := p["x-corridor-resource"].(string)
					if resource == "" {
						t.Fatalf("%s %s: path parameter %v names no resource (x-corridor-resource)", o.Method, path, p["name"])
					}
					o.Resources[p["name"].(string)] = resource
				}
			}
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].String() < out[j].String() })
	if len(out) < 50 {
		t.Fatalf("the document lists only %d operations: is every capability served?", len(out))
	}
	return out
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

var pathParam = regexp.MustCompile(`\{([^}]+)\}`)

// fill puts ids into the path's parameters.
func fill(path string, ids map[string]string) string {
	return pathParam.ReplaceAllStringFunc(path, func(m string) string { return ids[m[1:len(m)-1]] })
}

// TestDocument_WhoMayCallEachOperation: the document marks exactly the allow-listed operations
// public or optional, every /v1/admin operation (and no other) takes the operator token, and
// every other operation requires a tenant credential.
func TestDocument_WhoMayCallEachOperation(t *testing.T) {
	t.Parallel()
	var public, optional []string
	for _, o := range operations(t) {
		switch o.Auth {
		case "public":
			public = append(public, o.String())
		case "optional":
			optional = append(optional, o.String())
		case "operator":
			if !strings.HasPrefix(o.Path, "/v1/admin/") {
				t.Errorf("%s takes the operator token outside /v1/admin", o)
			}
		case "tenant":
			if strings.HasPrefix(o.Path, "/v1/admin/") {
				t.Errorf("%s is under /v1/admin but takes tenant credentials", o)
			}
		default:
			t.Errorf("%s: unknown x-corridor-auth %q", o, o.Auth)
		}
		if o.Auth == "tenant" && strings.HasPrefix(o.Path, "/v1/sandbox/") != o.SandboxOnly && !o.SandboxOnly {
			t.Errorf("%s is a sandbox route not marked sandbox-only", o)
		}
	}
	sort.Strings(public)
	sort.Strings(optional)
	if want := sorted(publicOperations); strings.Join(public, "\n") != strings.Join(want, "\n") {
		t.Errorf("public operations:\n%s\nwant exactly:\n%s", strings.Join(public, "\n"), strings.Join(want, "\n"))
	}
	if want := sorted(optionalOperations); strings.Join(optional, "\n") != strings.Join(want, "\n") {
		t.Errorf("optional-credential operations:\n%s\nwant exactly:\n%s", strings.Join(optional, "\n"), strings.Join(want, "\n"))
	}
}

func sorted(in []string) []string {
	out := append([]string(nil), in...)
	sort.Strings(out)
	return out
}
