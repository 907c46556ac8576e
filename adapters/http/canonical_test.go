package http

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

var canonicalSeeds = []string{
	`{"amountUsd":"1.00"}`, `{"amountUsd":"0.01","mcc":"5411","merchantName":"Bench"}`, `{}`, `[]`, `"s"`, `12.50`, `-0`, `1e5`, `1E+05`,
	`{"a":[1,2,{"b":null,"c":true}],"d":false}`, `{"a":{"b":{"c":{}}}}`, `{"é":"ü","z":"日本"}`, `{"a":"\u0041"}`, `{"a":"x\/y"}`,
	`{"b":1,"a":2}`, `{"a":1,"a":2}`, ` {"a":1}`, `{"a":1} `, `{"a" :1}`, `{"a":1}{"b":2}`, `{"a":1}x`, `{"a":"<b>&"}`,
	"{\"a\":\"\u2028\"}", "{\"a\":\"\xff\"}", "{\"a\":\"\xef\xbf\xbd\"}", `{"a":01}`, `{"a":1.}`, `{"a":.5}`, `{"a":+1}`, `{"a":1e}`,
	`{"a":tru}`, `{"a":nul}`, `{"a":[1,]}`, `{"a":1,}`, `{,}`, `[`, `{"a"`, `{"a":`, ``, `{"a":"b}`, "{\"a\":\"\t\"}",
	`{"a":1.5e-3,"b":-12}`, `[[[[[[[[[[]]]]]]]]]]`, `{"B":1,"a":2}`, `{"a":2,"B":1}`, `{"a":"","aa":""}`, `{"aa":"","a":""}`,
}

// TestCanonicalJSON_FastPathIsTheLongWay: a body the allocation-free check takes as canonical
// is exactly what decoding and encoding it again gives (the fingerprint of an Idempotency-Key
// never changes with the shortcut), and bodies that need a change take the long way.
func TestCanonicalJSON_FastPathIsTheLongWay(t *testing.T) {
	for _, s := range canonicalSeeds {
		body := []byte(s)
		if alreadyCanonical(body) && !bytes.Equal(remarshalJSON(body), body) {
			t.Errorf("%q taken as canonical, but its canonical form is %q", body, remarshalJSON(body))
		}
		want := remarshalJSON(body)
		if len(bytes.TrimSpace(body)) == 0 {
			want = []byte("{}") // the decoder reads an empty body as {}
		}
		if got := canonicalJSON(body); !bytes.Equal(got, want) {
			t.Errorf("canonicalJSON(%q) = %q, want %q", body, got, want)
		}
	}
	for _, s := range []string{`{"amountUsd":"1.00"}`, `{"amountUsd":"0.01","mcc":"5411","merchantName":"Bench"}`, `{}`,
		`{"a":[1,2,{"b":null,"c":true}],"d":false}`, `{"z":"日本","é":"ü"}`, `12.50`, `{"a":1.5e-3,"b":-12}`} {
		if !alreadyCanonical([]byte(s)) {
			t.Errorf("%q is canonical, the check says not", s)
		}
	}
	for _, s := range []string{`{"b":1,"a":2}`, `{"a":1,"a":2}`, ` {"a":1}`, `{"a":"\u0041"}`, `{"a":"<b>&"}`, `{"a":1}{"b":2}`, "{\"a\":\"\u2028\"}"} {
		if alreadyCanonical([]byte(s)) {
			t.Errorf("%q needs a change, the check takes it as canonical", s)
		}
	}
}

func FuzzCanonicalJSON(f *testing.F) {
	for _, s := range canonicalSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		if alreadyCanonical(body) && !bytes.Equal(remarshalJSON(body), body) {
			t.Fatalf("%q taken as canonical, but its canonical form is %q", body, remarshalJSON(body))
		}
	})
}

var keySeeds = []string{`{"amountUsd":"0.01","mcc":"5411","merchantName":"bench"}`, `{"amountUsd":"1","amountUsd":"2"}`, `{"AmountUsd":"1"}`,
	` { "amountUsd" : "1" , "mcc" : "5411" } `, `{"amountUsd":"\u0031","merchantName":"a\"b"}`, `{"\u0061mountUsd":"1"}`, `{"amountUSD":"1"}`,
	`{"perTransactionUsd":null,"blockedMcc":["5411"],"allowedMcc":null}`, `{"blockedMcc":["1","2"],"BlockedMcc":null}`,
	`{"metadata":{"a":1,"a":2}}`, `{"metadata":{"A":1,"a":2}}`, `[{"a":1},{"a":1,"a":2}]`, `{"x":[[{"y":1,"y":2}]]}`}

// TestCheckKeys_CheapCheckAgreesWithTheWalk: where the allocation-free check calls a body
// clean, the token walk finds nothing either (and what it refuses, the check never calls clean).
func TestCheckKeys_CheapCheckAgreesWithTheWalk(t *testing.T) {
	for _, s := range keySeeds {
		for _, typ := range keyCheckTypes() {
			if keysPlainlyClean([]byte(s), typ) {
				if err := walkKeys([]byte(s), typ); err != nil {
					t.Errorf("%q into %v: the check calls it clean, the walk refuses: %v", s, typ, err)
				}
			}
		}
	}
	for _, s := range []string{`{"amountUsd":"1","amountUsd":"2"}`, `{"AmountUsd":"1"}`, `{"amountUSD":"1"}`} {
		if keysPlainlyClean([]byte(s), reflect.TypeFor[*cardAuthorizationRequest]()) {
			t.Errorf("%q called clean", s)
		}
	}
	if !keysPlainlyClean([]byte(` { "amountUsd" : "1" , "mcc" : "5411" , "merchantName" : "a\"b" } `), reflect.TypeFor[*cardAuthorizationRequest]()) {
		t.Error("a clean body with spaces and an escaped value is not called clean")
	}
}

func keyCheckTypes() []reflect.Type {
	return []reflect.Type{reflect.TypeFor[*cardAuthorizationRequest](), reflect.TypeFor[*cardLimitsRequest](),
		reflect.TypeFor[*offrampPaymentCreateRequest](), reflect.TypeFor[*map[string]any](), reflect.TypeFor[*[]map[string]any]()}
}

func FuzzCheckKeys(f *testing.F) {
	for _, s := range keySeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, typ := range keyCheckTypes() {
			dst := reflect.New(typ.Elem()).Interface()
			if json.Unmarshal(body, dst) != nil {
				continue // checkKeys only sees bodies that decoded
			}
			if keysPlainlyClean(body, typ) {
				if err := walkKeys(body, typ); err != nil {
					t.Fatalf("%q into %v: the check calls it clean, the walk refuses: %v", body, typ, err)
				}
			}
		}
	})
}
