package http

import (
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Examples are derived from the DTO types, so every request and response in the document
// carries one without a hand-kept catalogue that could drift: a field's `example:"…"` tag wins;
// otherwise its enum's first value, its format, its pattern (patternExamples) or its name
// (exampleByName) gives a value that validates against the field's schema. The document's
// validation test checks every example against its schema, so a new pattern without an
// example fails there.

// exampleTime is the instant every timestamp example shows.
const exampleTime = "2026-11-27T10:00:00Z"

// exampleAddress is the EVM address every address example shows.
const exampleAddress = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"

// patternExamples give a value for each pattern a DTO declares.
var patternExamples = map[string]string{
	`^-?[0-9]+(\.[0-9]+)?$`:    "25.5",
	`^[0-9]+(\.[0-9]+)?$`:      "25.5",
	`^0x([0-9a-fA-F]{2})*$`:    "0x",
	`^0x[0-9a-fA-F]{40}$`:      exampleAddress,
	`^0x[0-9a-fA-F]{130}$`:     "0x" + strings.Repeat("ab", 65),
	`^[0-9]{4}$`:               "5411",
	`^[0-9]{6}$`:               "123456",
	`^[a-z0-9]+(-[a-z0-9]+)*$`: "acme-payouts",
	`^0x[0-9a-fA-F]{64}$`:      "0x" + strings.Repeat("1f", 32),
	`^[A-Z]{3}$`:               "USD",
	`^\+[1-9][0-9]{6,14}$`:     "+15555550123",
	`^[0-9]{1,19}$`:            "1000000",
	`^@?[A-Za-z0-9][A-Za-z0-9_-]{1,30}[A-Za-z0-9]$`: "acme",
}

// idPrefixes map a field's stem to the id prefix of the resource it names (walletId: wal_…).
var idPrefixes = map[string]string{
	"tenant": "ten", "member": "mem", "apiKey": "key", "key": "key", "account": "acc", "transfer": "trf",
	"wallet": "wal", "payment": "pay", "policy": "pol", "offrampPayment": "ofp", "claim": "clm",
	"quote": "rq", "routeQuote": "rq", "destination": "dst", "drip": "drp", "decision": "dec",
	"version": "pv", "attachment": "pat", "card": "card", "cardholder": "chd", "authorization": "cau",
	"agent": "agt", "treasuryAccount": "tra", "bucket": "bkt", "rule": "trl", "sweep": "swp",
	"ramp": "rmp", "contact": "con", "factor": "tfa", "challenge": "tfc", "twofaChallenge": "tfc",
	"event": "evt", "endpoint": "whe", "delivery": "whd", "invoice": "inv", "checkout": "chk",
}

// example is the example of a body DTO, false for a text body.
func (g *schemaGen) example(dto any) (any, bool) {
	switch d := dto.(type) {
	case string:
		return nil, false
	case OneOf:
		return g.example(d[0])
	case map[string]any:
		return map[string]any{"openapi": OpenAPIVersion}, true
	}
	return exampleOf(reflect.TypeOf(dto), "", nil), true
}

// exampleOf is an example value of a Go type; name and tag are the field's, when it is one.
func exampleOf(t reflect.Type, name string, tag *reflect.StructTag) any {
	if tag != nil {
		if v, ok := tag.Lookup("example"); ok {
			return typedExample(t, v)
		}
	}
	switch {
	case t.Kind() == reflect.Pointer:
		return exampleOf(t.Elem(), name, tag)
	case t == timeType:
		return exampleTime
	case t == jsonDecimalType:
		return json.Number("131072.01")
	case t.Kind() == reflect.Struct:
		return exampleObject(t)
	case t.Kind() == reflect.Slice:
		return []any{exampleOf(t.Elem(), name, tagWithoutExample(tag))}
	case t.Kind() == reflect.Map:
		if t.Elem().Kind() == reflect.Interface {
			return map[string]any{}
		}
		return map[string]any{"key": exampleOf(t.Elem(), "", nil)}
	case t.Kind() == reflect.Interface:
		return map[string]any{}
	case t.Kind() == reflect.Bool:
		return true
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		return 1
	case t.Kind() == reflect.Float32 || t.Kind() == reflect.Float64:
		return 1.5
	}
	return exampleString(name, tag)
}

// tagWithoutExample keeps a field's oas tag for the items of an array field.
func tagWithoutExample(tag *reflect.StructTag) *reflect.StructTag {
	if tag == nil {
		return nil
	}
	kept := reflect.StructTag(`oas:"` + tag.Get("oas") + `"`)
	return &kept
}

// typedExample reads an example tag as the field's type: a number for a number field.
func typedExample(t reflect.Type, v string) any {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch {
	case t == jsonDecimalType:
		return json.Number(v)
	case t.Kind() == reflect.Bool:
		return v == "true"
	case t.Kind() >= reflect.Int && t.Kind() <= reflect.Uint64:
		n, _ := strconv.Atoi(v)
		return n
	case t.Kind() == reflect.Slice:
		return strings.Split(v, "|")
	}
	return v
}

// exampleObject shows every field a response carries; an optional field that is omitted when
// empty is left out unless it has an example of its own, so a request example stays minimal.
func exampleObject(t reflect.Type) map[string]any {
	out := map[string]any{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			for k, v := range exampleObject(f.Type) {
				out[k] = v
			}
			continue
		}
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "" || name == "-" || !f.IsExported() {
			continue
		}
		_, hasExample := f.Tag.Lookup("example")
		optional := slices.Contains(strings.Split(opts, ","), "omitempty") && !slices.Contains(oasOptions(f.Tag.Get("oas")), "required")
		if optional && !hasExample {
			continue
		}
		out[name] = exampleOf(f.Type, name, &f.Tag)
	}
	return out
}

// exampleString is a string field's example from its enum, format, pattern or name.
func exampleString(name string, tag *reflect.StructTag) string {
	maxLength := 0
	if tag != nil {
		for _, opt := range oasOptions(tag.Get("oas")) {
			key, val, _ := strings.Cut(opt, "=")
			switch key {
			case "enum":
				first, _, _ := strings.Cut(val, "|")
				return first
			case "pattern":
				if v, ok := patternExamples[val]; ok {
					return v
				}
				panic("openapi: no example for the pattern " + val + " of " + name + ": add an example tag or a patternExamples entry")
			case "format":
				switch val {
				case "date-time":
					return exampleTime
				case "email":
					return "ada@example.com"
				case "uri":
					return "https://partner.example.com/webhooks/corridor"
				}
			case "maxLength":
				maxLength, _ = strconv.Atoi(val)
			}
		}
	}
	v := exampleByName(name)
	if maxLength > 0 && len(v) > maxLength {
		v = v[:maxLength]
	}
	return v
}

// exampleByName guesses a realistic value from a field's name.
func exampleByName(name string) string {
	lower := strings.ToLower(name)
	switch {
	case name == "id":
		return "wal_06h0c8y3a9xq2v5m7k1d4f6g8j"
	case strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID"):
		stem := strings.TrimSuffix(strings.TrimSuffix(name, "Id"), "ID")
		prefix := idPrefixes[stem]
		if prefix == "" {
			prefix = "obj"
		}
		return prefix + "_06h0c8y3a9xq2v5m7k1d4f6g8j"
	case strings.Contains(lower, "email"):
		return "ada@example.com"
	case strings.Contains(lower, "address"):
		return exampleAddress
	case strings.Contains(lower, "hash"):
		return "0x" + strings.Repeat("1f", 32)
	case strings.Contains(lower, "url"):
		return "https://partner.example.com/corridor"
	case strings.Contains(lower, "amount"), strings.Contains(lower, "usd"), strings.Contains(lower, "balance"), lower == "value":
		return "25.5"
	case strings.Contains(lower, "phone"):
		return "+15555550123"
	case lower == "currency":
		return "USD"
	case lower == "asset":
		return "USDC"
	case strings.Contains(lower, "name"):
		return "Acme Payouts"
	}
	return name
}
