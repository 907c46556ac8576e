// Package timestamp is the one form in which the API writes an instant: RFC 3339 in UTC with a
// fixed six-digit fraction (2026-12-06T01:02:03.450000Z). Go's own encoding drops trailing
// zeros of the fraction (…:03.45Z, …:03Z), so two instants a partner sorts as strings could
// sort out of time order; with a fixed width, string order is time order. Six digits is the
// database's precision, so nothing is lost.
package timestamp

import (
	"strings"
	"time"
)

// Layout is the API's timestamp layout.
const Layout = "2006-01-02T15:04:05.000000Z07:00"

// Format writes t in the API's form, in UTC.
func Format(t time.Time) string { return t.UTC().Format(Layout) }

// timeKeys are the field names of instants that do not end in At or _at.
var timeKeys = map[string]bool{
	"asOf": true, "from": true, "to": true, "at": true, "failingSince": true,
	"simulatedNow": true, "estimated_confirmation": true, "availableAt": true,
}

// IsTimeKey reports whether a JSON field of this name holds an instant: createdAt, expires_at,
// and the few of timeKeys. A test walks the OpenAPI document's date-time fields through it, so
// a new timestamp field with a name outside the rule fails there rather than going out in
// Go's variable-width form.
func IsTimeKey(name string) bool {
	if timeKeys[name] || strings.HasSuffix(name, "_at") {
		return true
	}
	return len(name) > 2 && strings.HasSuffix(name, "At") && name[len(name)-3] >= 'a' && name[len(name)-3] <= 'z'
}

// NormalizeJSON rewrites, in compact JSON as encoding/json writes it, every string value of a
// time field (IsTimeKey) that holds an RFC 3339 instant into the API's form; a metadata object
// is the partner's own text and is copied unchanged. It returns raw itself when nothing
// changes. A JSON encoder cannot be told how to write time.Time, so the HTTP adapter and the
// webhook sender pass what they encode through here.
func NormalizeJSON(raw []byte) []byte {
	var out []byte
	copied, key := 0, ""
	for i := 0; i < len(raw); i++ {
		if raw[i] != '"' {
			continue
		}
		end := stringEnd(raw, i)
		if end < 0 {
			return raw
		}
		if end+1 < len(raw) && raw[end+1] == ':' {
			key = string(raw[i+1 : end])
			if key == "metadata" && end+2 < len(raw) && raw[end+2] == '{' {
				end = objectEnd(raw, end+2)
				if end < 0 {
					return raw
				}
			}
			i = end
			continue
		}
		if IsTimeKey(key) {
			if t, err := time.Parse(time.RFC3339Nano, string(raw[i+1:end])); err == nil {
				if formatted := Format(t); formatted != string(raw[i+1:end]) {
					out = append(append(append(out, raw[copied:i+1]...), formatted...), '"')
					copied = end + 1
				}
			}
		}
		key, i = "", end
	}
	if out == nil {
		return raw
	}
	return append(out, raw[copied:]...)
}

// stringEnd is the index of the quote closing the JSON string that opens at start, -1 if none.
func stringEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '\\':
			i++
		case '"':
			return i
		}
	}
	return -1
}

// objectEnd is the index of the brace closing the object of strings that opens at start (a
// metadata object holds no nested objects), -1 if none.
func objectEnd(raw []byte, start int) int {
	for i := start + 1; i < len(raw); i++ {
		switch raw[i] {
		case '"':
			if i = stringEnd(raw, i); i < 0 {
				return -1
			}
		case '}':
			return i
		}
	}
	return -1
}
