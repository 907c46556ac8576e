package http

import (
	"fmt"
	"maps"
	"net/http"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/gofiber/fiber/v2"
)

// OpenAPIVersion is the version of the OpenAPI specification the document follows. 3.1 lets
// a schema say "string or null" with a type list, which is how the present-and-null
// convention of docs/architecture.md is written down.
const OpenAPIVersion = "3.1.0"

// Content is a response body offered in more than one content type: content type → the zero
// value of its DTO, or "" for a text body (a CSV export beside the JSON one).
type Content map[string]any

// OneOf is a request or success body of a path both surfaces share (docs/decisions/checkout.md): the document offers
// each DTO as one alternative of a oneOf.
type OneOf []any

// OneObject is a request body of a path both surfaces share, documented as one object rather
// than a oneOf of objects: generators that cannot tell two objects apart by their fields (ogen,
// when a property both shapes carry has types it cannot discriminate) take one object. Every
// property of either shape is offered, required only when every shape requires it; a property
// the shapes type differently is a oneOf of its types, each a component of its own. The server
// selects the shape from the body and strictly decodes it, so a body mixing the shapes' fields
// or missing a required field of its shape answers 400.
type OneObject []any

// openapi serves the document built from the endpoint table.
func (s *Server) openapi(c *fiber.Ctx) error { return c.JSON(s.OpenAPI()) }

// OpenAPI builds the document: every route of the table with its parameters, request and
// response schemas, and every error status it can answer. Every named DTO is one schema under
// components, referenced wherever it appears, so a client generator sees one type per DTO.
func (s *Server) OpenAPI() map[string]any { return buildOpenAPI(s.endpoints, s.cfg.Version) }

// APIVersion is the version of the contract this source tree serves, and the release version
// of the service and of both SDKs built from it: `corridor openapi` prints it as info.version,
// a development build reports it with its commit as build metadata (2.0.0+0123456789ab), and
// CHANGELOG.md's newest entry names it. Bump it, with a CHANGELOG entry, in the change that
// alters the contract; a test in sdk/ fails when they disagree.
const APIVersion = "2.1.0"

// unversionedBuild is info.version of a build that knows no version of its own (a test binary).
const unversionedBuild = APIVersion

// buildOpenAPI builds the document of routes; version is the build's (info.version follows it,
// so a partner can tell which build a document describes).
func buildOpenAPI(routes []Endpoint, version string) map[string]any {
	if version == "" {
		version = unversionedBuild
	}
	g := newSchemaGen()
	paths := map[string]any{}
	for _, r := range routes {
		item, _ := paths[r.Path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[r.Path] = item
		}
		item[strings.ToLower(r.Method)] = g.operation(r)
	}
	doc := map[string]any{
		"openapi": OpenAPIVersion,
		"info": map[string]any{
			"title": "Corridor API", "version": version,
			"description": "Money movement for partner platforms. Authenticate with X-Service-Api-Key (csk_test_… / csk_live_…) or an identity-provider session (Authorization: Bearer). Every POST accepts an Idempotency-Key header. Every non-2xx response is an ErrorEnvelope. Nullable fields are always present: null, never omitted.",
		},
		"servers":  []any{map[string]any{"url": "/"}},
		"paths":    paths,
		"webhooks": g.webhooks(),
		"components": map[string]any{
			"schemas":   g.components,
			"responses": g.errorResponses,
			"headers": map[string]any{
				headerRequestID: map[string]any{"required": true, "schema": map[string]any{"type": "string"},
					"description": "The request's id (the caller's well-formed X-Request-Id, or a generated one); error envelopes repeat it as requestId."},
			},
			"securitySchemes": map[string]any{
				"serviceApiKey": map[string]any{"type": "apiKey", "in": "header", "name": headerAPIKey},
				"session":       map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
				"operatorToken": map[string]any{"type": "apiKey", "in": "header", "name": headerOperatorToken,
					"description": "Operator token from OPERATOR_TOKEN (docs/decisions/operations.md); /v1/admin/... only, never tenant keys"},
			},
		},
	}
	g.describeComponents()
	return doc
}

func (g *schemaGen) operation(r Endpoint) map[string]any {
	summary, description := summarize(r)
	op := map[string]any{
		"summary": summary, "description": description, "tags": []string{r.Tag},
		"operationId": operationID(r), "responses": g.responses(r),
	}
	if len(r.Scopes) > 0 {
		scopes := make([]string, len(r.Scopes))
		for i, sc := range r.Scopes {
			scopes[i] = string(sc)
		}
		op["x-required-scopes"] = scopes
	}
	op["x-corridor-auth"] = authNames[r.Auth]
	if r.SandboxOnly {
		op["x-corridor-sandbox-only"] = true
	}
	if r.Public != "" {
		op["x-corridor-public"] = r.Public
	}
	if r.Grants != "" {
		op["x-corridor-grants"] = r.Grants
	}
	switch r.Auth {
	case authRequired:
		op["security"] = []any{map[string]any{"serviceApiKey": []string{}}, map[string]any{"session": []string{}}}
	case authOptional:
		op["security"] = []any{map[string]any{}, map[string]any{"serviceApiKey": []string{}}, map[string]any{"session": []string{}}}
	case authOperator:
		op["security"] = []any{map[string]any{"operatorToken": []string{}}}
	default:
		op["security"] = []any{}
	}
	if params := parameters(r); len(params) > 0 {
		op["parameters"] = params
	}
	if r.Request != nil {
		op["requestBody"] = g.requestBody(r)
	}
	if shape := errorShape(r); shape != "" {
		op["x-corridor-error-shape"] = shape
	}
	return op
}

// responses documents every status the route answers: its declared successes with their
// schemas, its declared errors, and the errors every route of its kind can answer (impliedErrors).
// Each error status references one shared response whose body is the ErrorEnvelope; default
// covers what no route can foresee.
func (g *schemaGen) responses(r Endpoint) map[string]any {
	out := map[string]any{}
	for status, body := range r.Responses {
		// An error status is the shared envelope unless the route answers it with a body of
		// its own content type (the payment page's HTML "not found").
		if _, own := body.(Content); status >= 400 && !own {
			continue
		}
		content := map[string]any{}
		switch b := body.(type) {
		case Content:
			for _, ct := range slices.Sorted(maps.Keys(b)) {
				dto := b[ct]
				content[ct] = g.mediaType(dto, operationID(r)+"Result")
				g.useBody(content[ct].(map[string]any)["schema"].(map[string]any), r, strconv.Itoa(status))
			}
		default:
			content["application/json"] = g.mediaType(b, operationID(r)+"Result")
			g.useBody(content["application/json"].(map[string]any)["schema"].(map[string]any), r, strconv.Itoa(status))
		}
		out[strconv.Itoa(status)] = map[string]any{"description": http.StatusText(status),
			"headers": requestIDHeader(), "content": content}
	}
	for _, status := range errorStatuses(r) {
		if _, own := out[strconv.Itoa(status)]; own {
			continue
		}
		out[strconv.Itoa(status)] = map[string]any{"$ref": "#/components/responses/" + g.errorResponse(status, errorShape(r))}
	}
	out["default"] = map[string]any{"$ref": "#/components/responses/" + g.errorResponse(0, errorShape(r))}
	return out
}

// requestBody documents a route's body. It is required when its schema requires a field (an
// empty body reads as {}, so a body of optional fields may be left out), and always for a
// body one of two shapes.
func (g *schemaGen) requestBody(r Endpoint) map[string]any {
	media := g.mediaType(r.Request, operationID(r)+"Body")
	g.useBody(media["schema"].(map[string]any), r, "request")
	_, isOneOf := r.Request.(OneOf)
	_, isOneObject := r.Request.(OneObject)
	required := isOneOf || isOneObject
	if t := reflect.TypeOf(r.Request); !required && t.Kind() == reflect.Struct {
		fields, _ := g.object(t)["required"].([]string)
		required = len(fields) > 0
	}
	return map[string]any{"required": required, "content": map[string]any{"application/json": media}}
}

// mediaType is a body's schema with an example of it. A oneOf is registered as a component
// named unionName, so generated clients get one named union type with a constructor per shape.
func (g *schemaGen) mediaType(dto any, unionName string) map[string]any {
	schema := g.bodySchema(dto, unionName)
	out := map[string]any{"schema": schema}
	if example, ok := g.example(dto); ok {
		out["example"] = example
	}
	return out
}

// bodySchema is the schema of a body: a DTO, a text body for "", or a oneOf of DTOs.
func (g *schemaGen) bodySchema(dto any, unionName string) map[string]any {
	if s, ok := dto.(string); ok && s == "" {
		return map[string]any{"type": "string"}
	}
	if alternatives, ok := dto.(OneOf); ok {
		out := make([]any, len(alternatives))
		titles := make([]string, len(alternatives))
		name := strings.ToUpper(unionName[:1]) + unionName[1:]
		for i, a := range alternatives {
			out[i] = g.schema(reflect.TypeOf(a))
			titles[i] = componentName(reflect.TypeOf(a))
			g.use(titles[i], "One shape of "+name+".")
		}
		g.components[name] = map[string]any{"oneOf": out,
			"description": "One of " + strings.Join(titles, " or ") + ": the body's shape selects the surface (docs/decisions/checkout.md; docs/api.md, Secondary surface); no property tells them apart, so a client builds the one it means (From… in Go)."}
		return map[string]any{"$ref": "#/components/schemas/" + name}
	}
	if shapes, ok := dto.(OneObject); ok {
		return g.oneObject(shapes, strings.ToUpper(unionName[:1])+unionName[1:])
	}
	return g.schema(reflect.TypeOf(dto))
}

// bareRef is a described $ref (allOf of one $ref beside a description) as the $ref alone: an
// alternative of a oneOf is named by its component, not described again.
func bareRef(s map[string]any) map[string]any {
	if all, ok := s["allOf"].([]any); ok && len(all) == 1 && len(s) == 2 && s["description"] != nil {
		return all[0].(map[string]any)
	}
	return s
}

// oneObjectRules says, per OneObject body, how the server tells its shapes apart.
var oneObjectRules = map[string]string{
	"CreatePaymentBody": "A body with currency, cryptocurrency or customer, or whose amount is a JSON number, is a hosted checkout " +
		"(amount, currency and cryptocurrency required); any other is a Safe payment (sourceWalletId, destination and amount as {value} " +
		"required). A field of the other shape, or a missing required field of the body's shape, answers 400.",
}

// oneObject registers the one object that documents shapes (OneObject) under name and answers
// its $ref. Properties are merged in the shapes' order; a property whose schemas differ becomes
// a component name+Property holding a oneOf of them, a plain alternative registered as a
// component of its own (the shape's name without Request, plus the property), so generated
// clients get named constructors for each (FromSafePaymentAmountRequest, FromCheckoutCreateAmount).
func (g *schemaGen) oneObject(shapes OneObject, name string) map[string]any {
	parent := g.current
	g.current = name
	defer func() { g.current = parent }()
	props, alternatives := map[string]any{}, map[string][]any{}
	requiredBy := map[string]int{}
	titles := make([]string, len(shapes))
	for i, shape := range shapes {
		t := reflect.TypeOf(shape)
		titles[i] = strings.TrimSuffix(componentName(t), "Request")
		object := g.object(t)
		for _, field := range object["required"].([]string) {
			requiredBy[field]++
		}
		for prop, schema := range object["properties"].(map[string]any) {
			if _, isRef := schema.(map[string]any)["$ref"]; !isRef {
				if _, seen := props[prop]; seen {
					component := titles[i] + strings.ToUpper(prop[:1]) + prop[1:]
					g.components[component] = schema
					g.use(component, "Part of "+name+".")
					schema = map[string]any{"$ref": "#/components/schemas/" + component}
				}
			}
			if _, seen := props[prop]; !seen {
				props[prop] = schema
			}
			alternatives[prop] = append(alternatives[prop], bareRef(schema.(map[string]any)))
		}
	}
	var required []string
	for prop, alts := range alternatives {
		if requiredBy[prop] == len(shapes) {
			required = append(required, prop)
		}
		if len(alts) > 1 && !reflect.DeepEqual(alts[0], alts[1]) {
			component := name + strings.ToUpper(prop[:1]) + prop[1:]
			g.components[component] = map[string]any{"oneOf": alts,
				"description": "The " + prop + " of one of the shapes of " + name + ": " + strings.Join(titles, " or ") + "."}
			g.use(component, "Part of "+name+".")
			props[prop] = map[string]any{"$ref": "#/components/schemas/" + component}
		}
	}
	slices.Sort(required)
	g.components[name] = map[string]any{"type": "object", "properties": props, "required": required, "additionalProperties": false,
		"description": "One object for the body's shapes (" + strings.Join(titles, ", ") + "); their fields are mutually exclusive. " + oneObjectRules[name]}
	return map[string]any{"$ref": "#/components/schemas/" + name}
}

func requestIDHeader() map[string]any {
	return map[string]any{headerRequestID: map[string]any{"$ref": "#/components/headers/" + headerRequestID}}
}

// errorStatuses are the route's declared error statuses and its implied ones, sorted.
func errorStatuses(r Endpoint) []int {
	var out []int
	for status := range r.Responses {
		if status >= 400 {
			out = append(out, status)
		}
	}
	for _, status := range impliedErrors(r) {
		if !slices.Contains(out, status) {
			out = append(out, status)
		}
	}
	slices.Sort(out)
	return out
}

// impliedErrors are the statuses the middleware chain lets a route answer whatever its
// handler does, so no endpoint table entry has to repeat them: every route refuses a query
// string with NUL or invalid UTF-8 (400) and request headers over MaxHeaderBytes (431), can fail (500) and can find the database or a node
// unavailable (503: the request's deadline passed, or the connection was lost); authenticated routes refuse
// missing or bad credentials (401), a missing scope or tenant or a suspended agent's key (403)
// and a caller over its rate (429); a POST takes an Idempotency-Key, which can be malformed (400), in flight (409) or
// reused with another body (422); a request body can be too large (413), and a route that reads
// one refuses a media type other than JSON (415).
func impliedErrors(r Endpoint) []int {
	out := []int{400, 431, 500, 503}
	switch r.Auth {
	case authRequired:
		out = append(out, 401, 403, 429)
	case authOptional:
		out = append(out, 401, 403, 429) // 403: a suspended agent's key (AGENT_SUSPENDED)
	case authOperator:
		out = append(out, 401, 429)
	}
	if r.Method == fiber.MethodPost && r.Auth != authOperator {
		out = append(out, 409, 422)
	}
	if r.Method == fiber.MethodPost || r.Method == fiber.MethodPut {
		out = append(out, 413)
	}
	if r.Request != nil {
		out = append(out, 415)
	}
	return out
}

// errorShape is the x-corridor-error-shape of a route: "secondary" when every error uses the
// secondary shape, "by-body" when the request body selects it, "" for the ErrorEnvelope.
func errorShape(r Endpoint) string {
	switch {
	case r.SecondaryErrors:
		return "secondary"
	case r.SecondaryBody != nil, r.SecondaryByID:
		return "by-body"
	}
	return ""
}

// errorResponse registers the shared error response of a status (0: the default one) in an
// error shape (errorShape) and returns its component name.
func (g *schemaGen) errorResponse(status int, shape string) string {
	name, description := "Error", "An error: the body is the ErrorEnvelope."
	if status != 0 {
		name = strings.Map(func(r rune) rune {
			if unicode.IsLetter(r) || unicode.IsDigit(r) {
				return r
			}
			return -1
		}, http.StatusText(status))
		if name == "" {
			name = "Error" + strconv.Itoa(status)
		}
		description = fmt.Sprintf("%d %s: the body is the ErrorEnvelope.", status, http.StatusText(status))
	}
	schema := g.statusErrorSchema(status)
	switch shape {
	case "secondary":
		name, description = "Secondary"+name, strings.Replace(description, "the ErrorEnvelope", "the SecondaryError", 1)
		schema = g.statusSecondaryErrorSchema(status)
	case "by-body":
		name, description = "EitherShape"+name, strings.Replace(description, "the ErrorEnvelope", "the ErrorEnvelope, or the SecondaryError for a secondary request (a secondary-shaped body, a chk_ id)", 1)
		schema = map[string]any{"oneOf": []any{schema, g.statusSecondaryErrorSchema(status)}}
	}
	if _, ok := g.errorResponses[name]; !ok {
		g.errorResponses[name] = map[string]any{"description": description, "headers": requestIDHeader(),
			"content": map[string]any{"application/json": map[string]any{"schema": schema}}}
	}
	return name
}

func parameters(r Endpoint) []any {
	var out []any
	for _, p := range r.Params {
		typ := "string"
		if p.Integer {
			typ = "integer"
		}
		param := map[string]any{"name": p.Name, "in": p.In, "required": p.In == "path",
			"schema": map[string]any{"type": typ}}
		if p.In == "path" {
			param["x-corridor-resource"] = pathResource(r.Path, p.Name)
		}
		if p.Description != "" {
			param["description"] = p.Description
		}
		out = append(out, param)
	}
	if r.Method == fiber.MethodPost {
		out = append(out, map[string]any{"name": "Idempotency-Key", "in": "header", "required": false,
			"description": "Retries with the same key and body replay the first outcome (24 h).",
			"schema":      map[string]any{"type": "string", "maxLength": 255}})
	}
	return out
}

// authNames are the values of the x-corridor-auth extension: who may call an operation. A
// black-box test asserts the public and operator lists against short allow-lists, so a route
// cannot become public by accident.
var authNames = map[authMode]string{
	authNone: "public", authOptional: "optional", authRequired: "tenant", authOperator: "operator",
}

// pathResource names the resource a path parameter identifies, the x-corridor-resource
// extension: the collection path before the parameter, without /v1/ and without the sandbox/
// or admin/ prefix, so /v1/sandbox/offramp/payments/{id}/expire-quotes and
// /v1/offramp/payments/{id} both name offramp/payments.
func pathResource(path, param string) string {
	before, _, _ := strings.Cut(path, "/{"+param+"}")
	before = strings.TrimPrefix(before, "/v1/")
	for _, prefix := range []string{"sandbox/", "admin/"} {
		before = strings.TrimPrefix(before, prefix)
	}
	return before
}

// schemaGen turns Go DTO types into JSON Schema (the OpenAPI 3.1 dialect) by reflection. Each
// named struct becomes one component; every use of it is a $ref.
type schemaGen struct {
	components     map[string]any
	errorResponses map[string]any
	names          map[reflect.Type]string
	// uses say where each component first appears (a body of an operation, a property of
	// another component), for the components componentDescriptions does not describe.
	uses    map[string]string
	current string // the component whose properties are being generated
}

func newSchemaGen() *schemaGen {
	return &schemaGen{components: map[string]any{}, errorResponses: map[string]any{}, names: map[reflect.Type]string{}, uses: map[string]string{}}
}

var timeType = reflect.TypeOf(time.Time{})

// componentRenames name the components whose derived name would collide with a type a client
// generator derives: oapi-codegen names the enum of Checkout.status CheckoutStatus, so the
// payment page's status answer is CheckoutPageStatus.
var componentRenames = map[string]string{"checkoutStatusResponse": "CheckoutPageStatus"}

// componentName names a DTO's schema: the Go name, exported, without the "Response" suffix
// every response DTO carries (tenantResponse is Tenant); the error envelope is ErrorEnvelope.
func componentName(t reflect.Type) string {
	if t == envelopeType {
		return "ErrorEnvelope"
	}
	if name, ok := componentRenames[t.Name()]; ok {
		return name
	}
	name := t.Name()
	if trimmed := strings.TrimSuffix(name, "Response"); trimmed != "" {
		name = trimmed
	}
	return strings.ToUpper(name[:1]) + name[1:]
}

// schema is the schema of a Go type; a named struct is registered once as a component and
// answered with its $ref.
func (g *schemaGen) schema(t reflect.Type) map[string]any {
	switch {
	case t.Kind() == reflect.Pointer:
		return nullable(g.schema(t.Elem()))
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
	case t == jsonDecimalType:
		return decimalNumberSchema()
	case t.Kind() == reflect.Struct && t.Name() != "":
		return map[string]any{"$ref": "#/components/schemas/" + g.component(t)}
	case t.Kind() == reflect.Struct:
		return g.object(t)
	case t.Kind() == reflect.Slice:
		return map[string]any{"type": "array", "items": g.schema(t.Elem())}
	case t.Kind() == reflect.Map:
		return map[string]any{"type": "object", "additionalProperties": g.schema(t.Elem())}
	case t.Kind() == reflect.Interface:
		return map[string]any{}
	case t.Kind() == reflect.Bool:
		return map[string]any{"type": "boolean"}
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return map[string]any{"type": "integer"}
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return map[string]any{"type": "number"}
	}
	return map[string]any{"type": "string"}
}

// component registers a named struct under components.schemas. Two Go types may not share a
// name: that would make one of them silently document the other, so it is a programmer error.
func (g *schemaGen) component(t reflect.Type) string {
	if name, ok := g.names[t]; ok {
		return name
	}
	name := componentName(t)
	for other, taken := range g.names {
		if taken == name {
			panic(fmt.Sprintf("openapi: %v and %v both name the component %s", other, t, name))
		}
	}
	g.names[t] = name
	g.components[name] = map[string]any{} // reserved first, so a recursive type terminates
	if g.current != "" {
		g.use(name, "Part of "+g.current+".")
	}
	parent := g.current
	g.current = name
	object := g.object(t)
	g.current = parent
	switch t {
	case envelopeType:
		object["properties"].(map[string]any)["code"] = g.errorCodeSchema()
	case secondaryErrorBodyType:
		object["properties"].(map[string]any)["code"] = g.secondaryErrorCodeSchema()
	}
	g.components[name] = object
	return name
}

// nullable widens a schema to admit null the OpenAPI 3.1 way: a type list for a plain schema,
// anyOf with {type: null} for a $ref (whose siblings would narrow, not widen, it) and for an
// enum. An enum's null must be one of its values for JSON Schema to admit it, and generators
// turn every enum value into a constant (a constant named <nil>); anyOf keeps the enum's
// values the named ones and makes the field a pointer to the enum's type.
func nullable(s map[string]any) map[string]any {
	if _, ok := s["$ref"]; ok {
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	if len(s) == 0 {
		return s // the any schema already admits null
	}
	typ, ok := s["type"].(string)
	_, isEnum := s["enum"]
	if !ok || isEnum {
		return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
	}
	s["type"] = []string{typ, "null"}
	return s
}

// decimalNumberSchema is a money amount carried as a JSON number (the checkout amount): a
// number whose format says it is an exact decimal, and which oapi-codegen generates as
// json.Number, a decimal kept as its text, never as float32 or float64. No x-go-type-import:
// a generated client imports encoding/json already, and naming it again duplicates the import.
func decimalNumberSchema() map[string]any {
	return map[string]any{"type": "number", "format": "decimal",
		"x-go-type": "json.Number"}
}

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	g.fields(t, props, &required)
	slices.Sort(required)
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

// fields collects the properties of a struct, embedded structs' fields inlined. A pointer field
// is nullable unless it is omitempty: then nil is absent, never null (docs/architecture.md keeps null
// for fields that are always present).
func (g *schemaGen) fields(t reflect.Type, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			g.fields(f.Type, props, required)
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		ft, isNullable := f.Type, slices.Contains(oasOptions(f.Tag.Get("oas")), "nullable")
		if ft.Kind() == reflect.Pointer {
			isNullable = isNullable || !slices.Contains(strings.Split(opts, ","), "omitempty")
			ft = ft.Elem()
		}
		s := g.schema(ft)
		g.applyTag(f, name, s, required)
		if isNullable {
			s = nullable(s)
		}
		if desc := f.Tag.Get("description"); desc != "" {
			s = describe(s, desc)
		} else if _, isRef := s["$ref"]; !isRef && s["anyOf"] == nil {
			desc := propertyDescription(name)
			if ft == jsonDecimalType {
				desc = "An amount as a JSON number holding an exact decimal (format decimal): read and write it as text, never through a float."
			}
			if desc != "" {
				s["description"] = desc // a plain schema only: wrapping a $ref would make generators mint a type
			}
		}
		if goName := f.Tag.Get("goname"); goName != "" {
			s["x-go-name"] = goName // a generated Go field's name where two JSON names would give one
		}
		props[name] = s
	}
}

// applyTag applies the oas struct tag: required, enum=A|B, format=…, pattern=…, maxLength=n.
// nullable (a field that is null in some answers though its Go type is not a pointer, such
// as a secret an idempotent replay hides) is applied by the caller, after the enum is known.
func (g *schemaGen) applyTag(f reflect.StructField, name string, s map[string]any, required *[]string) {
	for _, opt := range oasOptions(f.Tag.Get("oas")) {
		key, val, _ := strings.Cut(opt, "=")
		switch key {
		case "required":
			*required = append(*required, name)
		case "enum":
			var values []any
			for _, v := range strings.Split(val, "|") {
				values = append(values, v)
			}
			enumTarget(s)["enum"] = values
		case "format", "pattern":
			s[key] = val
		case "maxLength":
			n, _ := strconv.Atoi(val)
			s[key] = n
		case "", "nullable":
		default:
			panic(fmt.Sprintf("openapi: unknown oas tag option %q on %s", opt, f.Name))
		}
	}
}

// oasOptions splits an oas tag at the commas that start an option, so a pattern may hold
// commas of its own ({1,30}).
func oasOptions(tag string) []string {
	var out []string
	for _, part := range strings.Split(tag, ",") {
		key, _, _ := strings.Cut(part, "=")
		switch key {
		case "required", "nullable", "enum", "format", "pattern", "maxLength":
			out = append(out, part)
		default:
			if len(out) == 0 {
				out = append(out, part)
			} else {
				out[len(out)-1] += "," + part
			}
		}
	}
	return out
}

// enumTarget is the schema an enum constrains: the items of an array of strings, else the
// schema itself.
func enumTarget(s map[string]any) map[string]any {
	if items, ok := s["items"].(map[string]any); ok && s["type"] == "array" {
		return items
	}
	return s
}

// describe adds a description; a $ref gets it through allOf, so the shared component is not
// changed for every other use.
func describe(s map[string]any, desc string) map[string]any {
	if _, ok := s["$ref"]; ok {
		return map[string]any{"allOf": []any{s}, "description": desc}
	}
	s["description"] = desc
	return s
}
