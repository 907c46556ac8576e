package http

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/core"
)

// decodeTarget stands for a request DTO: nested objects, pointers, lists of objects, an
// embedded struct, a map and a raw document (kept raw, like a policy document).
type decodeTarget struct {
	AmountUSD string              `json:"amountUsd"`
	Amount    *decodeAmount       `json:"amount,omitempty"`
	Owners    []decodeOwner       `json:"owners,omitempty"`
	Labels    map[string]string   `json:"labels,omitempty"`
	Document  json.RawMessage     `json:"document,omitempty"`
	Nested    map[string][]string `json:"nested,omitempty"`
	decodeEmbedded
	Untagged string
	Skipped  string `json:"-"`
}

type decodeEmbedded struct {
	Memo *string `json:"memo,omitempty"`
}

type decodeAmount struct {
	Value string `json:"value"`
	Asset string `json:"asset,omitempty"`
}

type decodeOwner struct {
	Address string `json:"address"`
}

func TestDecodeJSON_Accepts(t *testing.T) {
	body := `{"amountUsd":"5","amount":{"value":"1","asset":"usdc"},"owners":[{"address":"a"},{"address":"b"}],
		"labels":{"Key":"v","key":"w"},"document":{"limits":{"dailyUsd":"1"}},"nested":{"a":["x"]},"memo":"m","Untagged":"u"}`
	var got decodeTarget
	if err := decodeJSON([]byte(body), &got); err != nil {
		t.Fatalf("decode: %v", err)
	}
	if got.AmountUSD != "5" || got.Amount.Value != "1" || len(got.Owners) != 2 || got.Labels["Key"] != "v" ||
		got.Labels["key"] != "w" || *got.Memo != "m" || got.Untagged != "u" || !strings.Contains(string(got.Document), "dailyUsd") {
		t.Fatalf("decoded %+v", got)
	}
	var empty decodeTarget
	if err := decodeJSON(nil, &empty); err != nil {
		t.Fatalf("an empty body is {}: %v", err)
	}
}

func TestDecodeJSON_Refuses(t *testing.T) {
	cases := []struct{ name, body, field string }{
		{"key in another case", `{"AmountUsd":"5"}`, "AmountUsd"},
		{"all upper case", `{"AMOUNTUSD":"5"}`, "AMOUNTUSD"},
		{"nested key in another case", `{"amount":{"Value":"1"}}`, "amount.Value"},
		{"key in another case in a list", `{"owners":[{"address":"a"},{"Address":"b"}]}`, "owners[1].Address"},
		{"embedded key in another case", `{"Memo":"m"}`, "Memo"},
		{"untagged field in another case", `{"untagged":"u"}`, "untagged"},
		{"field named -", `{"Skipped":"s"}`, "Skipped"},
		{"duplicated key", `{"amountUsd":"5","amountUsd":"6"}`, "amountUsd"},
		{"duplicated key, same value", `{"amountUsd":"5","amountUsd":"5"}`, "amountUsd"},
		{"duplicated nested key", `{"amount":{"value":"1","value":"2"}}`, "amount.value"},
		{"duplicated key in a list", `{"owners":[{"address":"a","address":"b"}]}`, "owners[0].address"},
		{"duplicated map key", `{"labels":{"k":"v","k":"w"}}`, "labels.k"},
		{"duplicated key in a raw document", `{"document":{"limits":{"dailyUsd":"1","dailyUsd":"2"}}}`, "document.limits.dailyUsd"},
		{"duplicated key deep in a raw list", `{"document":{"l":[[{"a":1,"a":2}]]}}`, "document.l[0][0].a"},
		{"duplicated key written with an escape", `{"amountUsd":"5","amount\u0055sd":"6"}`, "amountUsd"},
		{"unknown field", `{"colour":"red"}`, "colour"},
		{"wrong type", `{"amountUsd":5}`, "amountUsd"},
		{"trailing data", `{"amountUsd":"5"} {}`, "body"},
		{"malformed", `{"amountUsd":`, "body"},
		{"not an object", `[1]`, "body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var dst decodeTarget
			err := decodeJSON([]byte(tc.body), &dst)
			var e *core.Error
			if !errors.As(err, &e) || e.Code != core.CodeValidationFailed {
				t.Fatalf("err = %v, want VALIDATION_FAILED", err)
			}
			fields, _ := e.Details["fields"].(map[string]any)
			if reason, _ := fields[tc.field].(string); reason == "" {
				t.Fatalf("details.fields does not name %s: %v", tc.field, e.Details)
			}
		})
	}
}
