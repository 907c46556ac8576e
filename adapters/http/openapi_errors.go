package http

import (
	"reflect"
	"slices"
	"strconv"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
)

var (
	envelopeType            = reflect.TypeOf(Envelope{})
	secondaryErrorType      = reflect.TypeOf(secondaryErrorResponse{})
	secondaryErrorBodyType  = reflect.TypeOf(secondaryErrorBody{})
	secondaryErrorComponent = "SecondaryError"
)

// errorCodesByStatus are the codes an error of each status can carry, from the one table that
// maps codes to statuses (statusByCode), plus AGENT_SUSPENDED, which provisioning routes answer
// 409 (writeError). A route's error responses are per status, so the codes a route can answer
// are the codes of the statuses it declares: each shared error response narrows code to its
// status's enum, and a generated client gets one constant per code.
func errorCodesByStatus() map[int][]string {
	out := map[int][]string{}
	for code, status := range statusByCode {
		out[status] = append(out[status], string(code))
	}
	out[409] = append(out[409], string(agent.CodeSuspended))
	for status := range out {
		slices.Sort(out[status])
		out[status] = slices.Compact(out[status])
	}
	return out
}

// allErrorCodes is every code the ErrorEnvelope can carry, sorted: the enum of ErrorCode.
func allErrorCodes() []string {
	var out []string
	for _, codes := range errorCodesByStatus() {
		out = append(out, codes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// errorCodeSchema is the ErrorCode component: every stable code (docs/api.md Errors, docs/decisions/api.md), the
// enum of the envelope's code. It is registered once and referenced.
func (g *schemaGen) errorCodeSchema() map[string]any {
	if _, ok := g.components["ErrorCode"]; !ok {
		g.components["ErrorCode"] = map[string]any{"type": "string", "enum": toAny(allErrorCodes()),
			"description": "A stable error code (docs/api.md Errors, docs/decisions/api.md). Each error response narrows it to the codes its status can carry; " +
				"a client should still accept a code it does not know as a new refusal of that status."}
	}
	return map[string]any{"$ref": "#/components/schemas/ErrorCode"}
}

// statusErrorSchema is the body of an error response of one status, named ErrorEnvelope<status>
// under components: the ErrorEnvelope whose code is one of that status's codes. It is a named
// component, so a generated client has one type per status rather than one per operation.
func (g *schemaGen) statusErrorSchema(status int) map[string]any {
	envelope := g.schema(envelopeType)
	codes := errorCodesByStatus()[status]
	if status == 0 || len(codes) == 0 {
		return envelope
	}
	component := "ErrorEnvelope" + strconv.Itoa(status)
	if _, ok := g.components[component]; !ok {
		g.components[component] = map[string]any{
			"description": "The ErrorEnvelope of a " + strconv.Itoa(status) + " answer: its code is one of these.",
			"allOf": []any{envelope, map[string]any{"type": "object",
				"properties": map[string]any{"code": map[string]any{"type": "string", "enum": toAny(codes),
					"description": "The stable codes a " + strconv.Itoa(status) + " answer can carry (ErrorCode lists every code)."}}}}}
	}
	return map[string]any{"$ref": "#/components/schemas/" + component}
}

// secondaryErrorCodesByStatus are the codes a secondary-shaped error of each status can carry:
// the canonical codes of that status (errorCodesByStatus) as the secondary surface names them
// (secondaryCode: its five codes, else the canonical code in lower case), plus invalid_address
// beside validation_failed, which a refused address field answers (addressFields).
func secondaryErrorCodesByStatus() map[int][]string {
	out := map[int][]string{}
	for status, codes := range errorCodesByStatus() {
		for _, code := range codes {
			out[status] = append(out[status], secondaryCode(&core.Error{Code: core.Code(code)}))
		}
	}
	validation := StatusFor(core.CodeValidationFailed)
	out[validation] = append(out[validation], secondaryCode(&core.Error{Code: core.CodeValidationFailed,
		Details: map[string]any{"fields": map[string]any{addressFields[0]: "invalid"}}}))
	for status := range out {
		slices.Sort(out[status])
		out[status] = slices.Compact(out[status])
	}
	return out
}

// allSecondaryErrorCodes is every code the SecondaryError can carry, sorted: the enum of
// SecondaryErrorCode.
func allSecondaryErrorCodes() []string {
	var out []string
	for _, codes := range secondaryErrorCodesByStatus() {
		out = append(out, codes...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// secondaryErrorCodeSchema is the SecondaryErrorCode component, the enum of the secondary
// error's code, as ErrorCode is the envelope's.
func (g *schemaGen) secondaryErrorCodeSchema() map[string]any {
	if _, ok := g.components["SecondaryErrorCode"]; !ok {
		g.components["SecondaryErrorCode"] = map[string]any{"type": "string", "enum": toAny(allSecondaryErrorCodes()),
			"description": "A secondary-surface error code (docs/api.md, Secondary surface): invalid_api_key, insufficient_funds, invalid_address, " +
				"rate_limit_exceeded and wallet_not_found, else the canonical code in lower case (details.canonical_code holds it as is). " +
				"Each error response narrows it to the codes its status can carry; a client should still accept a code it does not know."}
	}
	return map[string]any{"$ref": "#/components/schemas/SecondaryErrorCode"}
}

// statusSecondaryErrorSchema is the body of a secondary-shaped error response of one status,
// SecondaryError<status>: {error: SecondaryErrorBody<status>}, the body whose code is one of
// that status's secondary codes (an allOf, as ErrorEnvelope<status> narrows the envelope). The
// outer object is written out rather than narrowed through allOf, so generators that merge
// allOf properties keep the body's message and details.
func (g *schemaGen) statusSecondaryErrorSchema(status int) map[string]any {
	shape := g.schema(secondaryErrorType)
	codes := secondaryErrorCodesByStatus()[status]
	if status == 0 || len(codes) == 0 {
		return shape
	}
	body := g.schema(secondaryErrorBodyType)
	suffix := strconv.Itoa(status)
	if _, ok := g.components[secondaryErrorComponent+suffix]; !ok {
		g.components["SecondaryErrorBody"+suffix] = map[string]any{
			"description": "The SecondaryErrorBody of a " + suffix + " answer: its code is one of these.",
			"allOf": []any{body, map[string]any{"type": "object",
				"properties": map[string]any{"code": map[string]any{"type": "string", "enum": toAny(codes),
					"description": "The secondary codes a " + suffix + " answer can carry (SecondaryErrorCode lists every code)."}}}}}
		g.components[secondaryErrorComponent+suffix] = map[string]any{
			"description": "The SecondaryError of a " + suffix + " answer: its error's code is one of that status's secondary codes.",
			"type":        "object", "additionalProperties": false, "required": []string{"error"},
			"properties": map[string]any{"error": map[string]any{"$ref": "#/components/schemas/SecondaryErrorBody" + suffix}}}
	}
	return map[string]any{"$ref": "#/components/schemas/" + secondaryErrorComponent + suffix}
}

func toAny(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}
