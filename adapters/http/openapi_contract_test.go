package http

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/corridorhq/corridor/core"
)

// fullDocument is the document of every route a build can serve (Document), loaded.
func fullDocument(t *testing.T) (*openapi3.T, map[string]any) {
	t.Helper()
	raw, err := json.Marshal(Document("1.2.3"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatalf("kin-openapi cannot load the document: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return doc, m
}

// TestOpenAPI_Contract walks the document a client generator reads and asks of it what issue
// #31 asks: names a person would write, words on every operation, an example on every body,
// error codes as enums, required bodies marked, money never a float, nullable enums without a
// null constant, the events in webhooks, and info.version following the build.
func TestOpenAPI_Contract(t *testing.T) {
	doc, raw := fullDocument(t)
	if err := doc.Validate(t.Context(), openapi3.EnableSchemaFormatValidation()); err != nil {
		t.Fatalf("the full document does not validate (examples included): %v", err)
	}
	t.Run("info.version follows the build", func(t *testing.T) {
		if doc.Info.Version != "1.2.3" {
			t.Fatalf("info.version %q", doc.Info.Version)
		}
	})
	t.Run("every route has a named, unique, described operation", func(t *testing.T) {
		lowerCamel := regexp.MustCompile(`^[a-z]+[A-Za-z0-9]*$`)
		seen := map[string]string{}
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				route := method + " " + path
				if _, ok := operationIDs[route]; !ok {
					t.Errorf("%s has no entry in operationIDs", route)
				}
				if !lowerCamel.MatchString(op.OperationID) || seen[op.OperationID] != "" {
					t.Errorf("%s: operationId %q is not lowerCamel or repeats %s", route, op.OperationID, seen[op.OperationID])
				}
				seen[op.OperationID] = route
				if op.Summary == "" || op.Description == "" || len(op.Summary) > maxSummaryLength+3 {
					t.Errorf("%s: summary %q, description %q", route, op.Summary, op.Description)
				}
			}
		}
		for route := range operationIDs {
			method, path, _ := strings.Cut(route, " ")
			if doc.Paths.Find(path) == nil || doc.Paths.Find(path).GetOperation(method) == nil {
				t.Errorf("operationIDs names %s, which is no route", route)
			}
		}
		for _, want := range []string{"createWallet", "listPayments", "createPayment", "getCheckoutPageStatus"} {
			if seen[want] == "" {
				t.Errorf("no operation %s", want)
			}
		}
	})
	t.Run("every JSON body has an example and required bodies are marked", func(t *testing.T) {
		for path, item := range doc.Paths.Map() {
			for method, op := range item.Operations() {
				if rb := op.RequestBody; rb != nil {
					media := rb.Value.Content.Get("application/json")
					if media == nil || media.Example == nil {
						t.Errorf("%s %s: request body without an example", method, path)
					}
					schema := media.Schema.Value
					if (len(schema.Required) > 0 || len(schema.OneOf) > 0) != rb.Value.Required {
						t.Errorf("%s %s: requestBody.required %t, yet its schema requires %v", method, path, rb.Value.Required, schema.Required)
					}
				}
				for status, resp := range op.Responses.Map() {
					if resp.Value == nil || resp.Ref != "" {
						continue // a shared error response; checked below
					}
					if media := resp.Value.Content.Get("application/json"); media != nil && media.Example == nil {
						t.Errorf("%s %s %s: response without an example", method, path, status)
					}
				}
			}
		}
		if !doc.Paths.Find("/v1/payments").Post.RequestBody.Value.Required {
			t.Errorf("POST /v1/payments: the body is not required")
		}
	})
	t.Run("error codes are enums per status", func(t *testing.T) {
		notFound := doc.Components.Responses["NotFound"].Value.Content.Get("application/json").Schema.Value
		codes := notFound.AllOf[1].Value.Properties["code"].Value.Enum
		if !slices.Contains(codes, any("WALLET_NOT_FOUND")) || slices.Contains(codes, any("INSUFFICIENT_FUNDS")) {
			t.Errorf("404 codes %v", codes)
		}
		all := doc.Components.Schemas["ErrorCode"].Value.Enum
		for _, code := range []string{"VALIDATION_FAILED", "INSUFFICIENT_FUNDS", "AGENT_SUSPENDED", "INTERNAL"} {
			if !slices.Contains(all, any(code)) {
				t.Errorf("ErrorCode lacks %s", code)
			}
		}
		conflict := doc.Components.Responses["Conflict"].Value.Content.Get("application/json").Schema.Value
		if !slices.Contains(conflict.AllOf[1].Value.Properties["code"].Value.Enum, any("AGENT_SUSPENDED")) {
			t.Errorf("409 lacks AGENT_SUSPENDED, which provisioning routes answer with it")
		}
	})
	t.Run("oneOf bodies are named unions", func(t *testing.T) {
		ref := doc.Paths.Find("/v1/wallets").GetOperation("POST").RequestBody.Value.Content.Get("application/json").Schema
		if ref.Ref == "" || len(ref.Value.OneOf) != 2 {
			t.Errorf("POST /v1/wallets: body schema %q is not a named union of two shapes", ref.Ref)
		}
	})
	// POST /v1/payments's two shapes share amount with types ogen cannot tell apart (an object
	// and a decimal), so its body is one object whose amount alone is a oneOf.
	t.Run("the payments body is one object", func(t *testing.T) {
		ref := doc.Paths.Find("/v1/payments").GetOperation("POST").RequestBody.Value.Content.Get("application/json").Schema
		body := ref.Value
		if ref.Ref != "#/components/schemas/CreatePaymentBody" || !body.Type.Is("object") || len(body.OneOf) != 0 ||
			!slices.Equal(body.Required, []string{"amount"}) {
			t.Fatalf("POST /v1/payments body %q: %v required %v", ref.Ref, body.Type, body.Required)
		}
		for _, prop := range []string{"sourceWalletId", "destination", "memo", "twofaChallengeId", "currency", "cryptocurrency", "customer", "description", "metadata"} {
			if body.Properties[prop] == nil {
				t.Errorf("CreatePaymentBody lacks %s", prop)
			}
		}
		amount := body.Properties["amount"].Value
		if len(amount.OneOf) != 2 || amount.OneOf[0].Ref != "#/components/schemas/SafePaymentAmountRequest" || amount.OneOf[1].Ref != "#/components/schemas/CheckoutCreateAmount" {
			t.Errorf("CreatePaymentBody.amount is not a oneOf of the two amounts: %+v", amount.OneOf)
		}
	})
	t.Run("money is never a float", func(t *testing.T) {
		amount := doc.Components.Schemas["CheckoutCreateAmount"].Value
		if !amount.Type.Is("number") || amount.Format != "decimal" || amount.Extensions["x-go-type"] != "json.Number" {
			t.Errorf("checkout amount %v %q %v", amount.Type, amount.Format, amount.Extensions)
		}
		components, _ := json.Marshal(raw["components"])
		if strings.Contains(string(components), `"format":"float"`) || strings.Contains(string(components), `"format":"double"`) {
			t.Errorf("a schema declares a float")
		}
	})
	t.Run("nullable enums have no null value", func(t *testing.T) {
		components, _ := json.Marshal(raw["components"])
		if regexp.MustCompile(`"enum":\[[^\]]*null`).Match(components) {
			t.Errorf("an enum lists null (generators name a constant <nil>)")
		}
		reason := doc.Components.Schemas["Checkout"].Value.Properties["failure_reason"].Value
		if len(reason.AnyOf) != 2 || !reason.AnyOf[1].Value.Type.Is("null") {
			t.Errorf("Checkout.failure_reason is not anyOf [enum, null]: %+v", reason)
		}
		if err := reason.VisitJSON(nil, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("null is refused: %v", err)
		}
	})
	t.Run("webhooks list every event type with its payload", func(t *testing.T) {
		for _, typ := range []string{"safe_payment.completed", "payment.completed", "refund.processed", "card_authorization.approved", "webhook_endpoint.disabled"} {
			item := doc.Webhooks[typ]
			if item == nil || item.Post == nil || item.Post.RequestBody.Value.Content.Get("application/json").Schema.Ref != "#/components/schemas/WebhookPayload" {
				t.Errorf("webhooks lacks %s", typ)
			}
		}
	})
}

// TestOpenAPI_EverySchemaDescribed: every component schema carries a description, the
// resources partners meet first in docs/api.md's words.
func TestOpenAPI_EverySchemaDescribed(t *testing.T) {
	doc, _ := fullDocument(t)
	for name, s := range doc.Components.Schemas {
		if s.Value.Description == "" {
			t.Errorf("components.schemas.%s has no description", name)
		}
	}
	if !strings.Contains(doc.Components.Schemas["SafePayment"].Value.Description, "safeTxHash") {
		t.Errorf("SafePayment: %q", doc.Components.Schemas["SafePayment"].Value.Description)
	}
}

// undescribedProperties may lack a description: none today. A property that truly cannot be
// described goes here with its reason, and in docs/decisions/api.md ("The contract partners generate from").
var undescribedProperties = map[string]string{}

// TestOpenAPI_PropertiesDescribed: every property of every component, at any depth (inline
// objects, array items, allOf/anyOf/oneOf branches), carries a description, from its tag, its
// shared name or the component it references; a checkout amount is described as the decimal
// number it is.
func TestOpenAPI_PropertiesDescribed(t *testing.T) {
	doc, _ := fullDocument(t)
	total := 0
	var walk func(path string, s *openapi3.SchemaRef)
	walk = func(path string, s *openapi3.SchemaRef) {
		if s == nil || s.Value == nil {
			return
		}
		for _, name := range slices.Sorted(maps.Keys(s.Value.Properties)) {
			p := s.Value.Properties[name]
			total++
			if (p.Value == nil || strings.TrimSpace(p.Value.Description) == "") && undescribedProperties[path+"."+name] == "" {
				t.Errorf("%s.%s has no description", path, name)
			}
			if p.Ref == "" { // a referenced component is walked as itself
				walk(path+"."+name, p)
			}
		}
		branches := []*openapi3.SchemaRef{s.Value.Items}
		branches = append(branches, s.Value.AllOf...)
		branches = append(branches, s.Value.AnyOf...)
		branches = append(branches, s.Value.OneOf...)
		for _, b := range branches {
			if b != nil && b.Ref == "" {
				walk(path, b)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(doc.Components.Schemas)) {
		walk(name, doc.Components.Schemas[name])
	}
	if total < 1000 {
		t.Errorf("only %d properties walked: the walk misses components", total)
	}
	for path := range undescribedProperties {
		name, prop, _ := strings.Cut(path, ".")
		if s := doc.Components.Schemas[name]; s == nil || s.Value.Properties[prop] == nil || s.Value.Properties[prop].Value.Description != "" {
			t.Errorf("undescribedProperties lists %s, which is no undescribed property", path)
		}
	}
	amount := doc.Components.Schemas["CheckoutCreate"].Value.Properties["amount"].Value
	if !strings.Contains(amount.Description, "JSON number") {
		t.Errorf("CheckoutCreate.amount: %q", amount.Description)
	}
	if d := doc.Components.Schemas["Wallet"].Value.Properties["createdAt"].Value.Description; !strings.Contains(d, "RFC 3339") {
		t.Errorf("Wallet.createdAt: %q", d)
	}
	if d := doc.Components.Schemas["SafePayment"].Value.Properties["safeTxHash"].Value.Description; !strings.Contains(d, "EIP-712") {
		t.Errorf("SafePayment.safeTxHash: %q", d)
	}
	if d := doc.Components.Schemas["Invoice"].Value.Properties["payerAddress"].Value.Description; !strings.Contains(d, "EVM address") {
		t.Errorf("Invoice.payerAddress: %q", d)
	}
}

// TestOpenAPI_SecondaryErrorCodes: the secondary error shape's code is an enum per status, as
// the envelope's is: each status lists the secondary names of its canonical codes, so a body
// toSecondaryError renders validates against its status's schema and a code of another status
// does not.
func TestOpenAPI_SecondaryErrorCodes(t *testing.T) {
	doc, _ := fullDocument(t)
	codesOf := func(status string) []any {
		t.Helper()
		s := doc.Components.Schemas["SecondaryError"+status]
		if s == nil {
			t.Fatalf("no SecondaryError%s", status)
		}
		body := s.Value.Properties["error"].Value
		if len(body.AllOf) != 2 || body.AllOf[0].Ref != "#/components/schemas/SecondaryErrorBody" {
			t.Fatalf("SecondaryError%s.error does not narrow the SecondaryErrorBody: %+v", status, body)
		}
		return body.AllOf[1].Value.Properties["code"].Value.Enum
	}
	if got := codesOf("401"); !slices.Equal(got, []any{"invalid_api_key"}) {
		t.Errorf("401 codes %v, want only invalid_api_key (UNAUTHENTICATED's secondary name)", got)
	}
	if got := codesOf("404"); !slices.Contains(got, any("wallet_not_found")) || slices.Contains(got, any("insufficient_funds")) || slices.Contains(got, any("WALLET_NOT_FOUND")) {
		t.Errorf("404 codes %v", got)
	}
	if got := codesOf("400"); !slices.Contains(got, any("validation_failed")) || !slices.Contains(got, any("invalid_address")) {
		t.Errorf("400 codes %v", got)
	}
	all := doc.Components.Schemas["SecondaryErrorCode"].Value.Enum
	for _, code := range secondaryCodes {
		if !slices.Contains(all, any(code)) {
			t.Errorf("SecondaryErrorCode lacks %s", code)
		}
	}
	if ref := doc.Components.Schemas["SecondaryErrorBody"].Value.Properties["code"].Ref; ref != "#/components/schemas/SecondaryErrorCode" {
		t.Errorf("SecondaryErrorBody.code is %q, not the SecondaryErrorCode enum", ref)
	}
	// Every canonical code, rendered as the secondary surface renders it, validates against the
	// schema of the status it is answered with (the default SecondaryError for a status no
	// secondary route declares); the same body under another status does not.
	for status, codes := range errorCodesByStatus() {
		schema := doc.Components.Schemas["SecondaryError"+strconv.Itoa(status)]
		if schema == nil {
			schema = doc.Components.Schemas["SecondaryError"]
		}
		for _, code := range codes {
			body := toSecondaryError(&core.Error{Code: core.Code(code), Message: "m"}, "req_1")
			if err := schema.Value.VisitJSON(asJSON(t, body), openapi3.EnableJSONSchema2020()); err != nil {
				t.Errorf("%s as %d: %v", code, status, err)
			}
		}
	}
	wrong := toSecondaryError(&core.Error{Code: core.CodeInsufficientFunds, Message: "m"}, "req_1")
	if err := doc.Components.Schemas["SecondaryError404"].Value.VisitJSON(asJSON(t, wrong), openapi3.EnableJSONSchema2020()); err == nil {
		t.Errorf("insufficient_funds validates as a 404")
	}
	address := toSecondaryError(&core.Error{Code: core.CodeValidationFailed, Message: "m",
		Details: map[string]any{"fields": map[string]any{"destination": "not an address"}}}, "req_1")
	if err := doc.Components.Schemas["SecondaryError400"].Value.VisitJSON(asJSON(t, address), openapi3.EnableJSONSchema2020()); err != nil {
		t.Errorf("invalid_address as 400: %v", err)
	}
}

// asJSON is a value as encoding/json reads it back (maps, float64s), the form VisitJSON takes.
func asJSON(t *testing.T, v any) any {
	t.Helper()
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
