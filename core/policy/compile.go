package policy

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/corridorhq/corridor/core"
)

// IR is a compiled document: lists deduplicated and sorted, MCCs left-padded to four digits,
// addresses lower-cased, an empty allowlist collapsed to none (Allowed nil), caps in base
// units. Two documents with the same rules compile to equal IR, and so to the same sha256.
type IR struct {
	Limits         Limits
	MCC            Lists
	Counterparties Lists
}

// Compile turns a validated document into its IR.
func Compile(d Document) IR {
	return IR{
		Limits:         d.Limits,
		MCC:            compileLists(d.MCC, normaliseMCC),
		Counterparties: compileLists(d.Counterparties, strings.ToLower),
	}
}

// normaliseMCC reads an entry as the numeric ISO 18245 code whose leading zeros may be
// omitted ("742" is 0742, veterinary services), so both spellings compile alike.
func normaliseMCC(s string) string {
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

func compileLists(l Lists, norm func(string) string) Lists {
	out := Lists{Blocked: compileList(l.Blocked, norm), Allowed: compileList(l.Allowed, norm)}
	return out
}

// compileList normalises, dedupes and sorts; an empty result is nil (no list).
func compileList(in []string, norm func(string) string) []string {
	if len(in) == 0 {
		return nil
	}
	seen := make(map[string]bool, len(in))
	out := make([]string, 0, len(in))
	for _, s := range in {
		n := norm(s)
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	sort.Strings(out)
	return out
}

// canonical is the serialised IR. Keys are in lexical order, empty sections and absent caps
// are omitted, caps are canonical decimal strings: a document that leaves a section out
// compiles to exactly the bytes it compiled to before that section existed.
type canonical struct {
	Counterparties *canonicalLists  `json:"counterparties,omitempty"`
	Limits         *canonicalLimits `json:"limits,omitempty"`
	MCC            *canonicalLists  `json:"mcc,omitempty"`
	SchemaVersion  int              `json:"schemaVersion"`
}

type canonicalLists struct {
	Allowed []string `json:"allowed,omitempty"`
	Blocked []string `json:"blocked,omitempty"`
}

type canonicalLimits struct {
	DailyUSD          string `json:"dailyUsd,omitempty"`
	MonthlyUSD        string `json:"monthlyUsd,omitempty"`
	PerTransactionUSD string `json:"perTransactionUsd,omitempty"`
	WeeklyUSD         string `json:"weeklyUsd,omitempty"`
}

// Canonical is the canonical serialisation of the IR: compact JSON, keys sorted, no empty
// sections. sha256 is computed over exactly these bytes.
func (ir IR) Canonical() []byte {
	c := canonical{SchemaVersion: SchemaVersion}
	if l := ir.Limits; l.PerTransaction != nil || l.Daily != nil || l.Weekly != nil || l.Monthly != nil {
		c.Limits = &canonicalLimits{DailyUSD: capString(l.Daily), MonthlyUSD: capString(l.Monthly),
			PerTransactionUSD: capString(l.PerTransaction), WeeklyUSD: capString(l.Weekly)}
	}
	c.MCC = canonicalOf(ir.MCC)
	c.Counterparties = canonicalOf(ir.Counterparties)
	out, err := json.Marshal(c)
	if err != nil {
		panic("policy: canonical IR does not marshal: " + err.Error())
	}
	return out
}

func capString(units *int64) string {
	if units == nil {
		return ""
	}
	return core.FormatUSD(*units)
}

func canonicalOf(l Lists) *canonicalLists {
	if len(l.Blocked) == 0 && len(l.Allowed) == 0 {
		return nil
	}
	return &canonicalLists{Allowed: l.Allowed, Blocked: l.Blocked}
}

// SHA256 is the lower-case hex sha256 of the canonical serialisation.
func (ir IR) SHA256() string {
	sum := sha256.Sum256(ir.Canonical())
	return hex.EncodeToString(sum[:])
}

// ParseIR reads back a stored canonical IR and checks it: it must parse as a document, be
// already compiled (recompiling changes nothing) and hash to wantSHA256. Anything else means
// the stored row was altered, and is an error, never a policy that silently evaluates.
func ParseIR(raw []byte, wantSHA256 string) (IR, error) {
	doc, err := ParseDocument("ir", raw)
	if err != nil {
		return IR{}, fmt.Errorf("policy: stored IR does not parse: %w", err)
	}
	ir := Compile(doc)
	if !bytes.Equal(ir.Canonical(), raw) {
		return IR{}, fmt.Errorf("policy: stored IR is not in canonical form")
	}
	if got := ir.SHA256(); got != wantSHA256 {
		return IR{}, fmt.Errorf("policy: stored IR hashes to %s, recorded %s", got, wantSHA256)
	}
	return ir, nil
}
