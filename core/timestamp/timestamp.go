// Package timestamp is the one form in which the API writes an instant: RFC 3339 in UTC with a
// fixed six-digit fraction (2026-12-06T01:02:03.450000Z). Go's own encoding drops trailing
// zeros of the fraction (…:03.45Z, …:03Z), so two instants a partner sorts as strings could
// sort out of time order; with a fixed width, string order is time order. Six digits is the
// database's precision, so nothing is lost.
//
// The form is chosen by type, not by field name: Marshal, the encoder of every JSON body the
// API and its webhooks send, writes each time.Time value (a field, a pointer's target, a map or
// slice element) in Layout, whatever the field is called.
package timestamp

import (
	stdjson "encoding/json"
	"time"

	json "github.com/go-json-experiment/json"
	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Layout is the API's timestamp layout.
const Layout = "2006-01-02T15:04:05.000000Z07:00"

// Format writes t in the API's form, in UTC.
func Format(t time.Time) string { return t.UTC().Format(Layout) }

// options are encoding/json's rules (the JSON v2 prototype's v1 options, so every other value
// is written exactly as encoding/json writes it) with two type-level marshalers: time.Time in
// Layout, and encoding/json's Number as the number it holds (the prototype knows only its own
// Number type).
var options = json.JoinOptions(jsonv1.DefaultOptionsV1(), json.WithMarshalers(json.JoinMarshalers(
	json.MarshalFunc(func(t time.Time) ([]byte, error) {
		b := make([]byte, 0, len(Layout)+2)
		return append(t.UTC().AppendFormat(append(b, '"'), Layout), '"'), nil
	}),
	json.MarshalFunc(func(n stdjson.Number) ([]byte, error) {
		if n == "" {
			return []byte("0"), nil
		}
		if _, err := n.Float64(); err != nil {
			return nil, err
		}
		return []byte(n), nil
	}),
)))

// Marshal encodes v as encoding/json.Marshal does, except that every time.Time is written in
// the API's form.
func Marshal(v any) ([]byte, error) { return json.Marshal(v, options) }
