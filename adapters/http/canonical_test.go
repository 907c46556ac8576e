package http

import (
	"bytes"
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
		if got, want := canonicalJSON(body), remarshalJSON(body); !bytes.Equal(got, want) {
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
