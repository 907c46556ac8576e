package http

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http/httptest"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

// The checkout amount is a number of format decimal (an exact decimal the generators keep as
// text); kin-openapi checks formats it knows, so the test tells it this one admits any number.
func init() {
	openapi3.DefineNumberFormatValidator("decimal", openapi3.NewRangeFormatValidator(-1e300, 1e300))
}

// contractServer is a server with every optional capability on, so its document lists every
// route the service can serve.
func contractServer(t *testing.T) *Server {
	t.Helper()
	features := map[string]bool{"offrampPayments": true, "pendingClaims": true, "operatorReview": true, "cards": true}
	s, err := New(Config{Store: nopStore{}, Capabilities: CapabilitiesConfig{Features: features}}, nopServices(t),
		slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// servedDocument fetches GET /v1/openapi.json from s and loads it with kin-openapi.
func servedDocument(t *testing.T, s *Server) (*openapi3.T, []byte) {
	t.Helper()
	resp, err := s.fiber.Test(httptest.NewRequest("GET", "/v1/openapi.json", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("GET /v1/openapi.json: %d %v", resp.StatusCode, err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("kin-openapi cannot load the document: %v", err)
	}
	return doc, raw
}

// TestOpenAPI_DocumentValidates: the served document is a valid OpenAPI document for a kept
// validator, with every reference resolved.
func TestOpenAPI_DocumentValidates(t *testing.T) {
	doc, _ := servedDocument(t, contractServer(t))
	if doc.OpenAPI != OpenAPIVersion {
		t.Fatalf("openapi %q, want %q", doc.OpenAPI, OpenAPIVersion)
	}
	if err := doc.Validate(context.Background(), openapi3.EnableSchemaFormatValidation()); err != nil {
		t.Fatalf("the document does not validate: %v", err)
	}
}

// TestOpenAPI_SharedSchemasAreReferenced: named DTOs are components used by $ref, never
// inlined, and every error status of every operation references the shared ErrorEnvelope.
func TestOpenAPI_SharedSchemasAreReferenced(t *testing.T) {
	s := contractServer(t)
	doc, raw := servedDocument(t, s)
	for _, name := range []string{"ErrorEnvelope", "Tenant", "Wallet", "SafePayment", "OfframpPayment", "PayoutRouteQuote", "Claim", "LedgerBalance"} {
		if doc.Components.Schemas[name] == nil {
			t.Errorf("components.schemas lacks %s", name)
		}
	}
	// An inlined DTO would carry its own "additionalProperties":false object outside components.
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	paths, _ := json.Marshal(m["paths"])
	if strings.Contains(string(paths), `"properties"`) {
		t.Errorf("an object schema is inlined under paths instead of referenced from components")
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			for code, ref := range op.Responses.Map() {
				status, _ := strconv.Atoi(code)
				if code != "default" && status < 400 {
					continue
				}
				jsonBody := ref.Value.Content.Get("application/json")
				if jsonBody == nil && ref.Value.Content.Get("text/html") != nil {
					continue // a page's own error page (GET /pay/{id}), not an API error
				}
				schema := jsonBody.Schema
				// The secondary surface's routes answer the SecondaryError, or on the path both
				// surfaces share, either shape by the body's (docs/decisions/checkout.md).
				switch shape, _ := op.Extensions["x-corridor-error-shape"].(string); shape {
				case "secondary":
					if !strings.HasPrefix(ref.Ref, "#/components/responses/Secondary") || secondaryRef(schema) != "#/components/schemas/SecondaryErrorBody" {
						t.Errorf("%s %s %s: not the shared SecondaryError response (%q, %q)", method, path, code, ref.Ref, schema.Ref)
					}
					continue
				case "by-body":
					if !strings.HasPrefix(ref.Ref, "#/components/responses/EitherShape") || len(schema.Value.OneOf) != 2 ||
						envelopeRef(schema.Value.OneOf[0]) != "#/components/schemas/ErrorEnvelope" || secondaryRef(schema.Value.OneOf[1]) != "#/components/schemas/SecondaryErrorBody" {
						t.Errorf("%s %s %s: not the shared either-shape response (%q)", method, path, code, ref.Ref)
					}
					continue
				}
				if !strings.HasPrefix(ref.Ref, "#/components/responses/") || envelopeRef(schema) != "#/components/schemas/ErrorEnvelope" {
					t.Errorf("%s %s %s: not the shared ErrorEnvelope response (%q, %q)", method, path, code, ref.Ref, envelopeRef(schema))
				}
			}
		}
	}
}

// envelopeRef is the ErrorEnvelope an error schema is: a $ref to it, or to the component
// (ErrorEnvelope404) whose allOf narrows its code to one status's codes.
func envelopeRef(s *openapi3.SchemaRef) string {
	if !strings.HasPrefix(s.Ref, "#/components/schemas/ErrorEnvelope") || s.Value == nil || len(s.Value.AllOf) == 0 {
		return s.Ref
	}
	return s.Value.AllOf[0].Ref
}

// secondaryRef is the SecondaryErrorBody a secondary error schema's error is: the body of the
// SecondaryError, or of SecondaryError404 whose body's allOf narrows its code to one status's.
func secondaryRef(s *openapi3.SchemaRef) string {
	if !strings.HasPrefix(s.Ref, "#/components/schemas/SecondaryError") || s.Value == nil || s.Value.Properties["error"] == nil {
		return s.Ref
	}
	body := s.Value.Properties["error"]
	if body.Value != nil && len(body.Value.AllOf) > 0 {
		return body.Value.AllOf[0].Ref
	}
	return body.Ref
}

// TestOpenAPI_EveryRouteDocumentsItsErrors: every operation names the errors its middleware can
// answer (400, 500; 401, 403, 429 when authenticated) besides the default.
func TestOpenAPI_EveryRouteDocumentsItsErrors(t *testing.T) {
	s := contractServer(t)
	doc, _ := servedDocument(t, s)
	for _, r := range s.Endpoints() {
		op := doc.Paths.Find(r.Path).GetOperation(r.Method)
		want := []int{400, 500}
		if r.Auth == authRequired {
			want = append(want, 401, 403, 429)
		}
		for _, status := range want {
			if op.Responses.Status(status) == nil {
				t.Errorf("%s %s does not document %d", r.Method, r.Path, status)
			}
		}
		if op.Responses.Default() == nil {
			t.Errorf("%s %s has no default response", r.Method, r.Path)
		}
	}
}

// TestOpenAPI_NullableConvention: a field that is always present but may be null is required
// and admits null; a secret shown once is null on an idempotent replay, so it admits null too.
func TestOpenAPI_NullableConvention(t *testing.T) {
	s := contractServer(t)
	doc, _ := servedDocument(t, s)
	member := doc.Components.Schemas["Member"].Value
	if !member.Properties["acceptedAt"].Value.Type.Includes("null") || !slices.Contains(member.Required, "acceptedAt") {
		t.Errorf("Member.acceptedAt is not required-and-nullable: %+v", member.Properties["acceptedAt"].Value)
	}
	if member.Properties["email"].Value.Type.Includes("null") {
		t.Errorf("Member.email admits null")
	}
	for _, r := range s.Endpoints() {
		for _, field := range r.SecretFields {
			for status, dto := range r.Responses {
				if status >= 300 {
					continue
				}
				schema := doc.Components.Schemas[componentName(reflect.TypeOf(dto))].Value
				if p := schema.Properties[field]; p == nil || !p.Value.Type.Includes("null") {
					t.Errorf("%s %s: secret field %s is not nullable (an idempotent replay returns null)", r.Method, r.Path, field)
				}
			}
		}
	}
	err := doc.Components.Schemas["Member"].Value.VisitJSON(map[string]any{
		"id": "mem_1", "email": "a@example.com", "displayName": nil, "role": "ADMIN", "status": "PENDING",
		"signerAddress": nil, "privyUserId": nil, "createdAt": "2026-01-01T00:00:00Z", "acceptedAt": nil,
	}, openapi3.EnableJSONSchema2020())
	if err != nil {
		t.Errorf("a member with null fields does not validate: %v", err)
	}
}
