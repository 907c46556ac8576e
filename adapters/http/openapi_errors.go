package http

import (
	"reflect"
	"slices"
	"strconv"

	"corridor/core/agent"
)

var envelopeType = reflect.TypeOf(Envelope{})

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

// errorCodeSchema is the ErrorCode component: every stable code (SPEC.md Errors, D4), the
// enum of the envelope's code. It is registered once and referenced.
func (g *schemaGen) errorCodeSchema() map[string]any {
	if _, ok := g.components["ErrorCode"]; !ok {
		g.components["ErrorCode"] = map[string]any{"type": "string", "enum": toAny(allErrorCodes()),
			"description": "A stable error code (SPEC.md Errors, DESIGN.md D4). Each error response narrows it to the codes its status can carry; " +
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
				"properties": map[string]any{"code": map[string]any{"type": "string", "enum": toAny(codes)}}}}}
	}
	return map[string]any{"$ref": "#/components/schemas/" + component}
}

func toAny(values []string) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = v
	}
	return out
}
