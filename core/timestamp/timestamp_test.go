package timestamp

import (
	stdjson "encoding/json"
	"testing"
	"time"
)

func TestFormat_FixedFractionSortsAsTime(t *testing.T) {
	whole := time.Date(2026, 12, 6, 1, 2, 3, 0, time.UTC)
	fraction := whole.Add(450 * time.Millisecond)
	if got := Format(fraction); got != "2026-12-06T01:02:03.450000Z" {
		t.Fatalf("Format: %q", got)
	}
	if a, b := Format(whole), Format(fraction); !(a < b) {
		t.Fatalf("%q sorts after %q", a, b)
	}
	if got := Format(whole.In(time.FixedZone("x", 3600))); got != "2026-12-06T01:02:03.000000Z" {
		t.Fatalf("not UTC: %q", got)
	}
}

type decimal string

func (d decimal) MarshalJSON() ([]byte, error) { return []byte(d), nil }

// TestMarshal_TimesByType: a time.Time is written in Layout wherever it sits and whatever its
// field is called; a string that looks like a time is left alone; everything else is written
// byte for byte as encoding/json writes it.
func TestMarshal_TimesByType(t *testing.T) {
	at := time.Date(2026, 12, 6, 1, 2, 3, 450_000_000, time.FixedZone("x", 3600))
	type inner struct {
		When *time.Time `json:"when"`
		None *time.Time `json:"none"`
	}
	v := struct {
		Odd      time.Time            `json:"somethingOdd"`
		Inner    inner                `json:"inner"`
		List     []time.Time          `json:"list"`
		ByKey    map[string]any       `json:"byKey"`
		Text     string               `json:"text"`
		Amount   decimal              `json:"amount"`
		Number   stdjson.Number       `json:"number"`
		Raw      stdjson.RawMessage   `json:"raw"`
		HTML     string               `json:"html"`
		Nil      []string             `json:"nil"`
		Omitted  string               `json:"omitted,omitempty"`
		Metadata map[string]string    `json:"metadata"`
		Nested   map[string]time.Time `json:"nested"`
	}{Odd: at, Inner: inner{When: &at}, List: []time.Time{at}, ByKey: map[string]any{"b": at, "a": 1},
		Text: "2026-12-06T01:02:03Z", Amount: "131072.01", Number: "12.5", Raw: stdjson.RawMessage(`{"x":1}`),
		HTML: "<a&b>", Metadata: map[string]string{"shippedAt": "2026-12-06T01:02:03Z"}, Nested: map[string]time.Time{"k": at}}
	got, err := Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	const when = `"2026-12-06T00:02:03.450000Z"`
	want := `{"somethingOdd":` + when + `,"inner":{"when":` + when + `,"none":null},"list":[` + when + `],"byKey":{"a":1,"b":` + when + `},` +
		`"text":"2026-12-06T01:02:03Z","amount":131072.01,"number":12.5,"raw":{"x":1},"html":"\u003ca\u0026b\u003e","nil":null,` +
		`"metadata":{"shippedAt":"2026-12-06T01:02:03Z"},"nested":{"k":` + when + `}}`
	if string(got) != want {
		t.Fatalf("Marshal:\n got %s\nwant %s", got, want)
	}
	plain, err := stdjson.Marshal(struct {
		A []string          `json:"a"`
		B map[string]string `json:"b"`
		C string            `json:"c"`
	}{C: "<&>"})
	if err != nil {
		t.Fatal(err)
	}
	ours, err := Marshal(struct {
		A []string          `json:"a"`
		B map[string]string `json:"b"`
		C string            `json:"c"`
	}{C: "<&>"})
	if err != nil || string(ours) != string(plain) {
		t.Fatalf("differs from encoding/json: %s vs %s (%v)", ours, plain, err)
	}
}
