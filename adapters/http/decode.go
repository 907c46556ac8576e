package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"reflect"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core"
)

// decodeBody decodes a request body strictly; see decodeJSON.
func decodeBody(c *fiber.Ctx, dst any) error {
	if err := requireJSONMediaType(c); err != nil {
		return err
	}
	return decodeJSON(requestBody(c), dst)
}

// localBody holds the request's body as requestBody read it.
const localBody = "body"

// requestBody is the request's body (decoded from its Content-Encoding), read once per request:
// Fiber's Body walks every request header and, with Immutable, copies each header's name and
// the whole body on every call, and a POST's body is read by the route's surface check, its
// Idempotency-Key fingerprint, the media-type check and the decoder. The slice is a copy of
// its own (Immutable), shared by every reader, which never change it.
func requestBody(c *fiber.Ctx) []byte {
	if b, ok := c.Locals(localBody).([]byte); ok {
		return b
	}
	b := c.Body()
	c.Locals(localBody, b)
	return b
}

// requireJSONMediaType refuses a body sent under a media type other than JSON with 415
// UNSUPPORTED_MEDIA_TYPE: JSON under text/plain or a form type is a client bug (or a browser
// form posted across sites) better named than parsed. A body without a Content-Type, and an
// empty body, are read as JSON.
func requireJSONMediaType(c *fiber.Ctx) error {
	rawBytes := bytes.TrimSpace(c.Request().Header.ContentType())
	if len(rawBytes) == 0 || len(bytes.TrimSpace(requestBody(c))) == 0 || isPlainJSONMediaType(rawBytes) {
		return nil
	}
	media, _, err := mime.ParseMediaType(string(rawBytes))
	if err == nil && (media == "application/json" || strings.HasSuffix(media, "+json")) {
		return nil
	}
	return core.E(core.CodeUnsupportedMediaType, "request bodies are JSON: send Content-Type: application/json").
		WithDetails(map[string]any{"supported": []string{"application/json"}})
}

// isPlainJSONMediaType reports the two Content-Type values clients send nearly always,
// "application/json" and "application/json; charset=utf-8" (any case), which
// mime.ParseMediaType accepts as application/json; anything else takes the full parse.
func isPlainJSONMediaType(v []byte) bool {
	const plain, withCharset = "application/json", "application/json; charset=utf-8"
	return (len(v) == len(plain) && strings.EqualFold(string(v), plain)) ||
		(len(v) == len(withCharset) && strings.EqualFold(string(v), withCharset))
}

// decodeJSON decodes a JSON body strictly: unknown fields, wrong types, malformed JSON and
// trailing data are VALIDATION_FAILED naming the field, never a 500. An empty body is {}.
// Keys must match the documented names exactly and appear once per object at any depth:
// encoding/json alone would take "AmountUsd" for "amountUsd" and keep the last of two
// duplicated keys, so a body could mean one thing to a proxy or a log reader and another to us.
func decodeJSON(raw []byte, dst any) error {
	body := bytes.TrimSpace(raw)
	if len(body) == 0 {
		body = []byte("{}")
	}
	// PostgreSQL text cannot hold NUL and the service speaks UTF-8: refuse both here, as the
	// client's mistake, rather than fail later in SQL.
	if !utf8.Valid(body) {
		return core.Invalid("body", "must be valid UTF-8")
	}
	if bytes.Contains(body, []byte(`\u0000`)) {
		return core.Invalid("body", "must not contain the NUL character (\\u0000)")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(dst); err != nil {
		return jsonError(err)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return core.Invalid("body", "must contain exactly one JSON object")
	}
	return checkKeys(body, reflect.TypeOf(dst))
}

func jsonError(err error) error {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		return core.Invalid("body", fmt.Sprintf("malformed JSON at offset %d", syntax.Offset))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return core.Invalid("body", "malformed JSON: unexpected end of input")
	case errors.As(err, &typeErr):
		field := typeErr.Field
		if field == "" {
			return core.Invalid("body", "must be a JSON object")
		}
		return core.Invalid(field, "must be "+jsonKind(typeErr.Type.Kind().String()))
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		name := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return core.Invalid(name, "is not a known field")
	}
	var de *core.Error
	if errors.As(err, &de) {
		return de
	}
	return core.Invalid("body", "invalid JSON: "+err.Error())
}

func jsonKind(kind string) string {
	switch kind {
	case "string":
		return "a string"
	case "bool":
		return "a boolean"
	case "slice", "array":
		return "an array"
	case "struct", "map":
		return "an object"
	case "int", "int32", "int64", "uint", "uint32", "uint64":
		return "an integer"
	case "float32", "float64":
		return "a number"
	}
	return "of a different type"
}

// queryInt reads a bounded non-negative integer query parameter.
func queryInt(c *fiber.Ctx, name string, def, max int) (int, error) {
	raw := c.Query(name)
	if raw == "" {
		return def, nil
	}
	n := 0
	for _, r := range raw {
		if r < '0' || r > '9' || n > 1_000_000_000 {
			return 0, core.Invalid(name, "must be a non-negative integer")
		}
		n = n*10 + int(r-'0')
	}
	if max > 0 && n > max {
		return 0, core.Invalid(name, fmt.Sprintf("must be at most %d", max))
	}
	return n, nil
}

// checkQuery refuses query parameters with NUL or invalid UTF-8 before any handler sees them.
func checkQuery(c *fiber.Ctx) error {
	errs := core.FieldErrors{}
	c.Context().QueryArgs().VisitAll(func(key, value []byte) {
		if !utf8.Valid(key) || !utf8.Valid(value) || bytes.IndexByte(value, 0) >= 0 || bytes.IndexByte(key, 0) >= 0 {
			errs.Add(strings.ToValidUTF8(strings.ReplaceAll(string(key), "\x00", ""), "?"), "must be valid UTF-8 without NUL")
		}
	})
	if err := errs.Err(); err != nil {
		return err
	}
	return c.Next()
}

// keyExpiry reads an API key's optional expiresAt (an agent's key or a tenant's): RFC 3339,
// kept to the microsecond the store keeps; empty is a key that never expires.
func keyExpiry(raw string) (*time.Time, error) {
	if raw == "" {
		return nil, nil
	}
	t, err := time.Parse(time.RFC3339, raw)
	if err != nil {
		return nil, core.Invalid("expiresAt", "must be an RFC 3339 timestamp such as 2027-01-31T00:00:00Z")
	}
	t = t.UTC().Truncate(time.Microsecond)
	return &t, nil
}
