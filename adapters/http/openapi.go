package http

import (
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
)

// openapi serves the document built from the route table.
func (s *Server) openapi(c *fiber.Ctx) error { return c.JSON(s.OpenAPI()) }

// OpenAPI builds the OpenAPI 3.1 document: every route of the table with its parameters,
// request and response schemas, and the error envelope on every non-2xx response.
func (s *Server) OpenAPI() map[string]any {
	g := &schemaGen{components: map[string]any{}}
	g.components["ErrorEnvelope"] = g.schema(reflect.TypeOf(Envelope{}))
	paths := map[string]any{}
	for _, r := range s.routes {
		item, _ := paths[r.Path].(map[string]any)
		if item == nil {
			item = map[string]any{}
			paths[r.Path] = item
		}
		item[strings.ToLower(r.Method)] = g.operation(r)
	}
	return map[string]any{
		"openapi": "3.1.0",
		"info": map[string]any{
			"title": "Corridor API", "version": "1.0.0",
			"description": "Money movement for partner platforms. Authenticate with X-Service-Api-Key (csk_test_… / csk_live_…) or an identity-provider session (Authorization: Bearer). Every POST accepts an Idempotency-Key header. Every non-2xx response is an ErrorEnvelope.",
		},
		"servers": []any{map[string]any{"url": "/"}},
		"paths":   paths,
		"components": map[string]any{
			"schemas": g.components,
			"securitySchemes": map[string]any{
				"apiKey":  map[string]any{"type": "apiKey", "in": "header", "name": headerAPIKey},
				"session": map[string]any{"type": "http", "scheme": "bearer", "bearerFormat": "JWT"},
				"operatorToken": map[string]any{"type": "apiKey", "in": "header", "name": headerOperatorToken,
					"description": "Operator token from OPERATOR_TOKEN (D11); /v1/admin/... only, never tenant keys"},
			},
		},
	}
}

func (g *schemaGen) operation(r Route) map[string]any {
	op := map[string]any{
		"summary": r.Summary, "tags": []string{r.Tag},
		"operationId": operationID(r), "responses": g.responses(r),
	}
	if len(r.Scopes) > 0 {
		scopes := make([]string, len(r.Scopes))
		for i, sc := range r.Scopes {
			scopes[i] = string(sc)
		}
		op["x-required-scopes"] = scopes
	}
	switch r.Auth {
	case authRequired:
		op["security"] = []any{map[string]any{"apiKey": []string{}}, map[string]any{"session": []string{}}}
	case authOptional:
		op["security"] = []any{map[string]any{}, map[string]any{"apiKey": []string{}}, map[string]any{"session": []string{}}}
	case authOperator:
		op["security"] = []any{map[string]any{"operatorToken": []string{}}}
	default:
		op["security"] = []any{}
	}
	if params := parameters(r); len(params) > 0 {
		op["parameters"] = params
	}
	if r.Request != nil {
		op["requestBody"] = map[string]any{"required": false, "content": map[string]any{
			"application/json": map[string]any{"schema": g.schema(reflect.TypeOf(r.Request))}}}
	}
	return op
}

func (g *schemaGen) responses(r Route) map[string]any {
	out := map[string]any{}
	errRef := map[string]any{"description": "Error", "content": map[string]any{
		"application/json": map[string]any{"schema": map[string]any{"$ref": "#/components/schemas/ErrorEnvelope"}}}}
	for status, body := range r.Responses {
		if status >= 400 {
			out[strconv.Itoa(status)] = errRef
			continue
		}
		ct := "application/json"
		schema := g.schema(reflect.TypeOf(body))
		if r.Produces != "" {
			ct, schema = r.Produces, map[string]any{"type": "string"}
		}
		out[strconv.Itoa(status)] = map[string]any{"description": "Success",
			"content": map[string]any{ct: map[string]any{"schema": schema}}}
	}
	out["default"] = errRef
	return out
}

func parameters(r Route) []any {
	var out []any
	for _, p := range r.Params {
		typ := "string"
		if p.Integer {
			typ = "integer"
		}
		out = append(out, map[string]any{"name": p.Name, "in": p.In, "required": p.In == "path",
			"description": p.Description, "schema": map[string]any{"type": typ}})
	}
	if r.Method == fiber.MethodPost {
		out = append(out, map[string]any{"name": "Idempotency-Key", "in": "header", "required": false,
			"description": "Retries with the same key and body replay the first outcome (24 h).",
			"schema":      map[string]any{"type": "string", "maxLength": 255}})
	}
	return out
}

func operationID(r Route) string {
	var b strings.Builder
	b.WriteString(strings.ToLower(r.Method))
	for _, part := range strings.FieldsFunc(r.Path, func(c rune) bool { return c == '/' || c == '-' || c == '.' || c == '{' || c == '}' }) {
		b.WriteString(strings.ToUpper(part[:1]) + part[1:])
	}
	return b.String()
}

// schemaGen turns Go DTO types into JSON Schema (OpenAPI 3.1 dialect) via reflection.
type schemaGen struct {
	components map[string]any
}

var timeType = reflect.TypeOf(time.Time{})

func (g *schemaGen) schema(t reflect.Type) map[string]any {
	if t.Kind() == reflect.Pointer {
		inner := g.schema(t.Elem())
		if typ, ok := inner["type"].(string); ok {
			inner["type"] = []string{typ, "null"}
		}
		return inner
	}
	switch {
	case t == timeType:
		return map[string]any{"type": "string", "format": "date-time"}
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

func (g *schemaGen) object(t reflect.Type) map[string]any {
	props := map[string]any{}
	var required []string
	g.fields(t, props, &required)
	sort.Strings(required)
	out := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}

func (g *schemaGen) fields(t reflect.Type, props map[string]any, required *[]string) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			g.fields(f.Type, props, required)
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		s := g.schema(f.Type)
		for _, opt := range strings.Split(f.Tag.Get("oas"), ",") {
			key, val, _ := strings.Cut(opt, "=")
			switch key {
			case "required":
				*required = append(*required, name)
			case "enum":
				s["enum"] = strings.Split(val, "|")
			case "format", "pattern":
				s[key] = val
			case "maxLength":
				n, _ := strconv.Atoi(val)
				s[key] = n
			}
		}
		props[name] = s
	}
}
