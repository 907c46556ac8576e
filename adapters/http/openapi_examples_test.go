package http

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// documentJSON is Document's JSON, decoded generically, as a generator reads it.
func documentJSON(t *testing.T) map[string]any {
	t.Helper()
	raw, err := json.Marshal(Document(APIVersion))
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// exampleID is an id as the service mints them: a prefix, "_", 26 base32 characters.
var exampleID = regexp.MustCompile(`^([a-z]+)_[0-9a-z]{26}$`)

// walkExamples calls visit with every string inside every example of the document, with the
// name of the field that holds it.
func walkExamples(node any, inExample bool, field string, visit func(field, value string)) {
	switch n := node.(type) {
	case map[string]any:
		for k, v := range n {
			switch {
			case !inExample && k == "example":
				walkExamples(v, true, "", visit)
			case inExample:
				walkExamples(v, true, k, visit)
			default:
				walkExamples(v, false, "", visit)
			}
		}
	case []any:
		for _, v := range n {
			walkExamples(v, inExample, field, visit)
		}
	case string:
		if inExample {
			visit(field, n)
		}
	}
}

// TestOpenAPI_ExamplesLookReal: no example string is its own field's name ("secret":"secret"),
// no id is of an unknown kind (obj_…), and each resource's example id has that resource's
// prefix (a Wallet's wal_…, an Event's evt_…), so a partner reading an example reads a value.
func TestOpenAPI_ExamplesLookReal(t *testing.T) {
	doc := documentJSON(t)
	strs := 0
	walkExamples(doc, false, "", func(field, value string) {
		strs++
		if field != "" && value == field {
			t.Errorf("the example of %s is its own name", field)
		}
		if m := exampleID.FindStringSubmatch(value); m != nil && m[1] == "obj" {
			t.Errorf("the example of %s is an id of no known kind: %s", field, value)
		}
	})
	if strs < 1000 {
		t.Fatalf("only %d example strings: the walk missed the examples", strs)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	for name, raw := range schemas {
		props, _ := raw.(map[string]any)["properties"].(map[string]any)
		if _, ok := props["id"]; !ok {
			continue
		}
		if schemaIDPrefixes[name] == "" {
			t.Errorf("schema %s has an id but no entry in schemaIDPrefixes", name)
		}
	}
	checked := 0
	walkMediaTypes(doc, func(ref string, example map[string]any) {
		name := strings.TrimPrefix(ref, "#/components/schemas/")
		if id, ok := example["id"].(string); ok && schemaIDPrefixes[name] != "" {
			checked++
			if !strings.HasPrefix(id, schemaIDPrefixes[name]+"_") {
				t.Errorf("the example id of %s is %s, want %s_…", name, id, schemaIDPrefixes[name])
			}
		}
	})
	if checked < 50 {
		t.Fatalf("only %d example ids checked", checked)
	}
}

// walkMediaTypes calls visit with each media type's schema reference and object example.
func walkMediaTypes(node any, visit func(ref string, example map[string]any)) {
	switch n := node.(type) {
	case map[string]any:
		if schema, ok := n["schema"].(map[string]any); ok {
			if example, ok := n["example"].(map[string]any); ok {
				if ref, ok := schema["$ref"].(string); ok {
					visit(ref, example)
				}
			}
		}
		for _, v := range n {
			walkMediaTypes(v, visit)
		}
	case []any:
		for _, v := range n {
			walkMediaTypes(v, visit)
		}
	}
}
