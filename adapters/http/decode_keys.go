package http

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/corridorhq/corridor/core"
)

// checkKeys walks a body that already decoded into a value of type t and refuses any object
// with a key given twice, at any depth (raw documents included), and any key that names a
// field of t only when compared without case. It runs after decoding, so the body is known to
// be one well-formed JSON value.
func checkKeys(body []byte, t reflect.Type) error {
	if keysPlainlyClean(body, t) {
		return nil
	}
	return walkKeys(body, t)
}

// walkKeys is checkKeys the long way, token by token, naming the first key it refuses.
func walkKeys(body []byte, t reflect.Type) error {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	return keyWalker{dec}.value(t, "")
}

// keyWalker reads one JSON value at a time, with the Go type it decodes into (nil when the
// value is kept raw or has no fixed shape, where only duplicates are checked).
type keyWalker struct{ dec *json.Decoder }

func (w keyWalker) value(t reflect.Type, path string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return core.Invalid("body", "malformed JSON")
	}
	switch tok {
	case json.Delim('{'):
		return w.object(shapeOf(t), path)
	case json.Delim('['):
		return w.array(shapeOf(t), path)
	}
	return nil
}

func (w keyWalker) object(t reflect.Type, path string) error {
	seen := map[string]bool{}
	for w.dec.More() {
		tok, err := w.dec.Token()
		if err != nil {
			return core.Invalid("body", "malformed JSON")
		}
		key, _ := tok.(string)
		at := joinPath(path, key)
		if seen[key] {
			return core.Invalid(at, "is given more than once; each key may appear only once in an object")
		}
		seen[key] = true
		child, err := memberType(t, key, at)
		if err != nil {
			return err
		}
		if err := w.value(child, at); err != nil {
			return err
		}
	}
	_, err := w.dec.Token()
	return err
}

func (w keyWalker) array(t reflect.Type, path string) error {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	for i := 0; w.dec.More(); i++ {
		if err := w.value(elem, fmt.Sprintf("%s[%d]", path, i)); err != nil {
			return err
		}
	}
	_, err := w.dec.Token()
	return err
}

var unmarshalerType = reflect.TypeFor[json.Unmarshaler]()

// shapeOf strips pointers and returns nil for types that decode themselves (json.RawMessage,
// time.Time) or take any shape (interfaces): their keys are not ours to check by name.
func shapeOf(t reflect.Type) reflect.Type {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() == reflect.Interface || t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	return t
}

// memberType returns the type a key of an object of type t decodes into. A struct's key must
// be a field's JSON name exactly; one that matches only without case is refused with the name
// it resembles.
func memberType(t reflect.Type, key, at string) (reflect.Type, error) {
	switch {
	case t == nil:
		return nil, nil
	case t.Kind() == reflect.Map:
		return t.Elem(), nil
	case t.Kind() != reflect.Struct:
		return nil, nil
	}
	fields := jsonFields(t)
	if ft, ok := fields[key]; ok {
		return ft, nil
	}
	for name := range fields {
		if strings.EqualFold(name, key) {
			return nil, core.Invalid(at, fmt.Sprintf("is not a known field; field names are case-sensitive (did you mean %q?)", name))
		}
	}
	return nil, nil
}

var jsonFieldCache sync.Map // reflect.Type → map[string]reflect.Type

// jsonFields maps the JSON names of a struct's fields, as encoding/json names them (tag name,
// else the Go name; "-" skipped; untagged embedded structs promote their fields), to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	if cached, ok := jsonFieldCache.Load(t); ok {
		return cached.(map[string]reflect.Type)
	}
	fields := map[string]reflect.Type{}
	collectFields(t, fields)
	jsonFieldCache.Store(t, fields)
	return fields
}

func collectFields(t reflect.Type, into map[string]reflect.Type) {
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			if inner := derefType(f.Type); inner.Kind() == reflect.Struct {
				embedded := map[string]reflect.Type{}
				collectFields(inner, embedded)
				for n, ft := range embedded {
					if _, shadowed := into[n]; !shadowed {
						into[n] = ft
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		into[name] = f.Type
	}
}

func derefType(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
