package policy

import (
	"errors"
	"testing"

	"github.com/corridorhq/corridor/core"
)

func fieldsOf(t *testing.T, err error) map[string]any {
	t.Helper()
	var de *core.Error
	if !errors.As(err, &de) || de.Code != core.CodeValidationFailed {
		t.Fatalf("want VALIDATION_FAILED, got %v", err)
	}
	return de.Details["fields"].(map[string]any)
}

func TestParseDocument_Refusals(t *testing.T) {
	const addr = "0x00000000000000000000000000000000000000aa"
	cases := []struct {
		name, doc, field string
	}{
		{"not an object", `[1]`, "document"},
		{"missing schemaVersion", `{}`, "document.schemaVersion"},
		{"wrong schemaVersion", `{"schemaVersion":2}`, "document.schemaVersion"},
		{"schemaVersion as string", `{"schemaVersion":"1"}`, "document.schemaVersion"},
		{"schemaVersion 1.0", `{"schemaVersion":1.0}`, "document.schemaVersion"},
		{"unknown top-level field", `{"schemaVersion":1,"limit":{}}`, "document.limit"},
		{"unknown limits field", `{"schemaVersion":1,"limits":{"yearlyUsd":"1"}}`, "document.limits.yearlyUsd"},
		{"unknown mcc field", `{"schemaVersion":1,"mcc":{"denied":[]}}`, "document.mcc.denied"},
		{"unknown counterparties field", `{"schemaVersion":1,"counterparties":{"x":1}}`, "document.counterparties.x"},
		{"limits not an object", `{"schemaVersion":1,"limits":[]}`, "document.limits"},
		{"zero cap", `{"schemaVersion":1,"limits":{"dailyUsd":"0"}}`, "document.limits.dailyUsd"},
		{"negative cap", `{"schemaVersion":1,"limits":{"weeklyUsd":"-5"}}`, "document.limits.weeklyUsd"},
		{"numeric cap", `{"schemaVersion":1,"limits":{"monthlyUsd":100}}`, "document.limits.monthlyUsd"},
		{"too precise cap", `{"schemaVersion":1,"limits":{"perTransactionUsd":"1.0000001"}}`, "document.limits.perTransactionUsd"},
		{"exponent cap", `{"schemaVersion":1,"limits":{"dailyUsd":"1e3"}}`, "document.limits.dailyUsd"},
		{"cap with spaces", `{"schemaVersion":1,"limits":{"dailyUsd":" 5"}}`, "document.limits.dailyUsd"},
		{"non-numeric cap", `{"schemaVersion":1,"limits":{"perTransactionUsd":"ten"}}`, "document.limits.perTransactionUsd"},
		{"one-digit MCC", `{"schemaVersion":1,"mcc":{"blocked":["5"]}}`, "document.mcc.blocked[0]"},
		{"five-digit MCC", `{"schemaVersion":1,"mcc":{"allowed":["5812","58120"]}}`, "document.mcc.allowed[1]"},
		{"letters in MCC", `{"schemaVersion":1,"mcc":{"blocked":["58a2"]}}`, "document.mcc.blocked[0]"},
		{"numeric MCC", `{"schemaVersion":1,"mcc":{"blocked":[5812]}}`, "document.mcc.blocked"},
		{"short address", `{"schemaVersion":1,"counterparties":{"blocked":["0x1234"]}}`, "document.counterparties.blocked[0]"},
		{"address without 0x", `{"schemaVersion":1,"counterparties":{"allowed":["00000000000000000000000000000000000000aa00"]}}`, "document.counterparties.allowed[0]"},
		{"address on both lists", `{"schemaVersion":1,"counterparties":{"blocked":["` + addr + `"],"allowed":["0x00000000000000000000000000000000000000AA"]}}`, "document.counterparties.allowed[0]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseDocument("document", []byte(c.doc))
			if err == nil {
				t.Fatalf("accepted %s", c.doc)
			}
			if _, ok := fieldsOf(t, err)[c.field]; !ok {
				t.Fatalf("fields %v do not name %s", fieldsOf(t, err), c.field)
			}
		})
	}
}

func TestParseDocument_NamesEveryBadField(t *testing.T) {
	_, err := ParseDocument("document", []byte(`{"schemaVersion":1,"limits":{"dailyUsd":"0","weeklyUsd":"x"},"mcc":{"blocked":["1"]}}`))
	f := fieldsOf(t, err)
	for _, want := range []string{"document.limits.dailyUsd", "document.limits.weeklyUsd", "document.mcc.blocked[0]"} {
		if _, ok := f[want]; !ok {
			t.Fatalf("%v does not name %s", f, want)
		}
	}
}

func TestParseDocument_Accepts(t *testing.T) {
	docs := []string{
		`{"schemaVersion":1}`,
		`{"schemaVersion":1,"limits":null,"mcc":null,"counterparties":null}`,
		`{"schemaVersion":1,"limits":{"perTransactionUsd":"100.50","dailyUsd":null}}`,
		`{"schemaVersion":1,"mcc":{"blocked":["58","742","5812"],"allowed":[]}}`,
		`{"schemaVersion":1,"counterparties":{"blocked":["0x00000000000000000000000000000000000000aA"]}}`,
	}
	for _, d := range docs {
		if _, err := ParseDocument("document", []byte(d)); err != nil {
			t.Fatalf("%s: %v", d, err)
		}
	}
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]Mode{"": ModeLog, "off": ModeOff, "log": ModeLog, "enforce": ModeEnforce} {
		if got, ok := ParseMode(in); !ok || got != want {
			t.Fatalf("%q: %v %v", in, got, ok)
		}
	}
	if _, ok := ParseMode("block"); ok {
		t.Fatal("accepted block")
	}
}
