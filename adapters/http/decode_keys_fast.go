package http

import (
	"bytes"
	"reflect"
	"strings"
	"unicode/utf8"
)

// keysPlainlyClean reports that checkKeys would find nothing in body (which decoded into a
// value of type t): no object gives a key twice and no key of a struct matches a field only
// without case. It reads the body's bytes once and allocates nothing; where it cannot be sure
// cheaply (a key with an escape or a byte outside ASCII, an object of more than maxPlainKeys keys, deep nesting) or
// finds something, it answers false and checkKeys walks the body, naming what it finds.
func keysPlainlyClean(body []byte, t reflect.Type) bool {
	w := plainWalker{b: body}
	w.space()
	return w.value(t, 0) && !w.failed
}

// maxPlainKeys is the most keys of one object the cheap check compares pairwise.
const maxPlainKeys = 16

type plainWalker struct {
	b      []byte
	i      int
	failed bool
}

func (w *plainWalker) space() {
	for w.i < len(w.b) && (w.b[w.i] == ' ' || w.b[w.i] == '\t' || w.b[w.i] == '\n' || w.b[w.i] == '\r') {
		w.i++
	}
}

// value reads the value at w.i (the body decoded, so it is well formed) and checks what it holds.
func (w *plainWalker) value(t reflect.Type, depth int) bool {
	if w.i >= len(w.b) || depth > canonicalDepth {
		return false
	}
	switch w.b[w.i] {
	case '{':
		w.i++
		return w.object(shapeOf(t), depth+1)
	case '[':
		w.i++
		return w.array(shapeOf(t), depth+1)
	case '"':
		w.str()
		return true
	}
	for w.i < len(w.b) && !strings.ContainsRune(",]} \t\n\r", rune(w.b[w.i])) {
		w.i++
	}
	return true
}

// str reads a string at w.i and returns its raw content; plain is false for one with an
// escape or a byte outside ASCII (its content may not be its bytes: the decoder reads invalid
// UTF-8 as U+FFFD, so two different byte strings can be one key), which matters only where the
// string is a key.
func (w *plainWalker) str() (raw []byte, plain bool) {
	start := w.i + 1
	plain = true
	for j := start; j < len(w.b); j++ {
		switch c := w.b[j]; {
		case c == '\\':
			plain = false
			j++
		case c == '"':
			w.i = j + 1
			return w.b[start:j], plain
		case c >= utf8.RuneSelf:
			plain = false
		}
	}
	w.i = len(w.b)
	return nil, false
}

func (w *plainWalker) object(t reflect.Type, depth int) bool {
	var keys [maxPlainKeys][]byte
	n := 0
	for {
		w.space()
		if w.i >= len(w.b) {
			return false
		}
		switch w.b[w.i] {
		case '}':
			w.i++
			return true
		case ',':
			w.i++
			continue
		}
		key, plain := w.str()
		if !plain || n == maxPlainKeys {
			return false
		}
		for _, k := range keys[:n] {
			if bytes.Equal(k, key) {
				return false
			}
		}
		keys[n] = key
		n++
		child, ok := plainMember(t, key)
		if !ok {
			return false
		}
		w.space()
		w.i++ // the colon
		w.space()
		if !w.value(child, depth) {
			return false
		}
	}
}

func (w *plainWalker) array(t reflect.Type, depth int) bool {
	var elem reflect.Type
	if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
		elem = t.Elem()
	}
	for {
		w.space()
		if w.i >= len(w.b) {
			return false
		}
		switch w.b[w.i] {
		case ']':
			w.i++
			return true
		case ',':
			w.i++
			continue
		}
		if !w.value(elem, depth) {
			return false
		}
	}
}

// plainMember is memberType without its error: ok is false where memberType would refuse.
func plainMember(t reflect.Type, key []byte) (reflect.Type, bool) {
	switch {
	case t == nil:
		return nil, true
	case t.Kind() == reflect.Map:
		return t.Elem(), true
	case t.Kind() != reflect.Struct:
		return nil, true
	}
	fields := jsonFields(t)
	if ft, ok := fields[string(key)]; ok {
		return ft, true
	}
	for name := range fields {
		if strings.EqualFold(name, string(key)) {
			return nil, false
		}
	}
	return nil, true
}
