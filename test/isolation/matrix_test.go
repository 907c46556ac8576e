package isolation

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// bodies are request bodies that reach an operation's object lookup and scope check: an
// operation that refuses an empty object as 400 before either needs one here (the matrix says
// so when it meets one). Values are fixed; ids in them are not the victim's.
var bodies = map[string]any{
	"PATCH /v1/tenants/members/{id}":                  map[string]any{"role": "MEMBER"},
	"POST /v1/agents/{id}/keys":                       map[string]any{"name": "matrix", "scopes": []string{"agents:read"}},
	"POST /v1/offramp/payments/{id}/select-route":     map[string]any{"routeQuoteId": "rq_matrix"},
	"POST /v1/payments/{id}/sign":                     map[string]any{"signature": "0x" + strings.Repeat("ab", 64) + "1b"},
	"POST /v1/phone-aliases/{id}/verify":              map[string]any{"code": "123456"},
	"POST /v1/twofactor/factors/{id}/verify":          map[string]any{"code": "123456"},
	"POST /v1/wallets/{id}/transactions":              map[string]any{"to": "0x00000000000000000000000000000000000000Aa"},
	"POST /v1/wallets/{id}/send":                      map[string]any{"currency": "USDC", "amount": "1", "destination": "0x00000000000000000000000000000000000000Aa"},
	"POST /v1/twofactor/challenges/{id}/verify":       map[string]any{"code": "123456"},
	"POST /v1/policies/{id}/attachments":              map[string]any{"subjectType": "wallet", "subjectId": "wal_matrix"},
	"POST /v1/sandbox/treasury/accounts/{id}/advance": map[string]any{"days": 1},
	"POST /v1/sandbox/cards/{id}/authorizations":      map[string]any{"amountUsd": "1", "mcc": "5411", "merchantName": "matrix"},
	"POST /v1/cards/{id}/ephemeral-keys":              map[string]any{"platform": "vendor_a"},
	"POST /v1/sandbox/invoices/{id}/advance":          map[string]any{"seconds": 1},
	"POST /v1/bills/inbound/{invoiceId}/accept":       map[string]any{"walletId": "wal_matrix"},
	"POST /v1/policies/{id}/versions": map[string]any{
		"document": map[string]any{"schemaVersion": 1, "limits": map[string]any{"perTransactionUsd": "5"}}},
}

// TestMatrix_EveryOperation walks every operation of the document:
//   - no credential: 401 UNAUTHENTICATED (public and optional operations are the allow-lists'
//     and are skipped; operator routes refuse tenant credentials too);
//   - another tenant's root key on the victim's object: 404 <RESOURCE>_NOT_FOUND;
//   - a key of the victim holding every scope but the operation's: 403 INSUFFICIENT_SCOPE with
//     details.missing equal to the document's x-required-scopes (an operation declaring none is
//     never refused for scope);
//   - the victim's LIVE key on its TEST object: 404, or 403 SANDBOX_ONLY for a sandbox route.
func TestMatrix_EveryOperation(t *testing.T) {
	ops := operations(t)
	w := newWorld(t)
	allScopes := map[string]bool{}
	for _, o := range ops {
		for _, s := range o.Scopes {
			allScopes[s] = true
		}
	}
	keys := map[string]*harness.Client{}
	lacking := func(t *testing.T, scopes []string) *harness.Client {
		name := strings.Join(scopes, ",")
		if c, ok := keys[name]; ok {
			return c
		}
		var held []string
		for s := range allScopes {
			if !slices.Contains(scopes, s) {
				held = append(held, s)
			}
		}
		sort.Strings(held)
		c := env().Client(t).WithKey(env().NewKey(t, w.victim.Session, map[string]any{"name": "lacks " + name, "scopes": held}))
		keys[name] = c
		return c
	}
	for _, o := range ops {
		t.Run(o.String(), func(t *testing.T) {
			switch o.Auth {
			case "public", "optional":
				return // the allow-lists of TestDocument_WhoMayCallEachOperation
			case "operator":
				operatorRoute(t, w, o)
				return
			}
			ids := map[string]string{}
			crossTenant, perEnvironment := true, true
			var notFound string
			for param, resource := range o.Resources {
				id, f := w.id(t, resource)
				ids[param] = id
				if f.bearer {
					crossTenant = false
				} else {
					notFound = f.notFound
				}
				perEnvironment = perEnvironment && !f.tenantWide
			}
			path := fill(o.Path, ids)
			body := requestBody(o)
			call := func(c *harness.Client) *harness.Response { return asEnvelope(o, c.Do(o.Method, path, body)) }

			call(env().Client(t)).ExpectError(t, 401, "UNAUTHENTICATED")

			if len(o.Scopes) > 0 {
				e := expectRefusal(t, call(lacking(t, o.Scopes)), 403, "INSUFFICIENT_SCOPE")
				details, _ := e["details"].(map[string]any)
				var missing []string
				for _, s := range asSlice(details["missing"]) {
					missing = append(missing, s.(string))
				}
				if details["required"] != o.Scopes[0] || !slices.Equal(missing, o.Scopes) {
					t.Errorf("details %v, want required %q and missing %v (the document's scopes)", details, o.Scopes[0], o.Scopes)
				}
			} else if r := call(lacking(t, nil)); r.Status == 403 && strings.Contains(string(r.Body), "INSUFFICIENT_SCOPE") {
				t.Errorf("declares no scope but refused a key for scope: %s", r.Body)
			}

			if len(o.Resources) == 0 || !crossTenant {
				return
			}
			expectRefusal(t, call(w.other.Root), 404, notFound)
			switch {
			case !perEnvironment:
			case o.SandboxOnly:
				expectRefusal(t, call(w.live), 403, "SANDBOX_ONLY")
			default:
				otherEnvironment(t, w, o, path, body, notFound)
			}
		})
	}
}

// otherEnvironment: the victim's LIVE key on its TEST object answers 404. A LIVE operation that
// needs the LIVE chain may answer 503 CHAIN_UNAVAILABLE first (docs/decisions/tenancy.md: no LIVE chain is configured
// here); that is accepted only when a made-up id gets the very same answer, so the refusal says
// nothing about the object.
func otherEnvironment(t *testing.T, w *world, o operation, path string, body any, notFound string) {
	t.Helper()
	r := asEnvelope(o, w.live.Do(o.Method, path, body))
	if r.Status != 503 {
		expectRefusal(t, r, 404, notFound)
		return
	}
	madeUp := map[string]string{}
	for param := range o.Resources {
		madeUp[param] = "x_matrix_missing"
	}
	other := asEnvelope(o, w.live.Do(o.Method, fill(o.Path, madeUp), body))
	if other.Status != r.Status || code(other.Body) != code(r.Body) || code(r.Body) != "CHAIN_UNAVAILABLE" {
		t.Errorf("LIVE key on a TEST object: %d %s, but on a made-up id: %d %s", r.Status, r.Body, other.Status, other.Body)
	}
}

// asEnvelope reads a refusal of a secondary-surface route ({error: {code, message, details}},
// whose details carry canonical_code and request_id; its own codes are tested in
// test/secondary) as the canonical envelope it maps, so the matrix checks it like any other.
// The response was already checked against the document in its own shape.
func asEnvelope(o operation, r *harness.Response) *harness.Response {
	if o.ErrorShape != "secondary" || r.Status < 400 {
		return r
	}
	var s struct {
		Error struct {
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &s); err != nil || s.Error.Details == nil {
		return r
	}
	details := map[string]any{}
	for k, v := range s.Error.Details {
		if k != "canonical_code" && k != "request_id" {
			details[k] = v
		}
	}
	body, _ := json.Marshal(map[string]any{"statusCode": r.Status, "message": s.Error.Message, "code": s.Error.Details["canonical_code"],
		"requestId": s.Error.Details["request_id"], "details": details})
	out := *r
	out.Body = body
	return &out
}

func code(body []byte) string {
	var e struct {
		Code string `json:"code"`
	}
	_ = json.Unmarshal(body, &e)
	return e.Code
}

// operatorRoute: /v1/admin takes the operator token only; tenant keys and sessions, even the
// owner's, are refused as unauthenticated.
func operatorRoute(t *testing.T, w *world, o operation) {
	ids := map[string]string{}
	for param, resource := range o.Resources {
		ids[param], _ = w.id(t, resource)
	}
	path := fill(o.Path, ids)
	for name, c := range map[string]*harness.Client{"anonymous": env().Client(t), "root key": w.victim.Root,
		"owner session": w.victim.Session, "live key": w.live} {
		if r := c.Do(o.Method, path, requestBody(o)); r.Status != 401 {
			t.Errorf("%s: %d %s, want 401", name, r.Status, r.Body)
		}
	}
}

func requestBody(o operation) any {
	if b, ok := bodies[o.String()]; ok {
		return b
	}
	if o.HasBody {
		return map[string]any{}
	}
	return nil
}

// expectRefusal is ExpectError with a hint when a 400 hides the check behind body validation.
func expectRefusal(t *testing.T, r *harness.Response, status int, code string) map[string]any {
	t.Helper()
	if r.Status == 400 && status != 400 {
		var e map[string]any
		_ = json.Unmarshal(r.Body, &e)
		t.Errorf("400 before the %d %s check: add a body to bodies that passes validation (%v)", status, code, e["details"])
		return e
	}
	return r.ExpectError(t, status, code)
}
