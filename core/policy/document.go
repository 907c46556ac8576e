package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/corridorhq/corridor/core"
)

// SchemaVersion is the only document schema this build reads.
const SchemaVersion = 1

// MaxListEntries bounds every list of a document (docs/architecture.md: everything has a bound).
const MaxListEntries = 1000

// Document is a validated schemaVersion 1 document, before compilation. Caps are base units
// (nil = no cap); lists hold the entries as written, already checked.
type Document struct {
	Limits         Limits
	MCC            Lists
	Counterparties Lists
}

// Limits are the caps of a document or IR in base units; nil means no cap.
type Limits struct {
	PerTransaction, Daily, Weekly, Monthly *int64
}

// Lists are a denylist and an allowlist. Allowed nil means "no allowlist"; in a Document an
// explicitly empty allowlist is kept empty and compilation collapses it to nil.
type Lists struct {
	Blocked []string
	Allowed []string
}

var (
	mccEntryPattern = regexp.MustCompile(`^[0-9]{2,4}$`)
)

// field names of schemaVersion 1, per object.
var (
	topFields   = []string{"schemaVersion", "limits", "mcc", "counterparties"}
	limitFields = []string{"perTransactionUsd", "dailyUsd", "weeklyUsd", "monthlyUsd"}
	listFields  = []string{"blocked", "allowed"}
)

// ParseDocument reads a policy document strictly: unknown fields at any level, a schemaVersion
// other than 1, a cap that is not a positive decimal string with at most six fraction digits,
// an MCC entry that is not a 2–4 digit string, an address that is not 0x plus 40 hex digits,
// and an address on both counterparty lists are VALIDATION_FAILED naming every offending
// field, prefixed with prefix (for example "document.limits.dailyUsd").
func ParseDocument(prefix string, raw []byte) (Document, error) {
	errs := core.FieldErrors{}
	doc := Document{}
	top, ok := object(errs, prefix, raw, topFields)
	if !ok {
		return doc, errs.Err()
	}
	parseSchemaVersion(errs, join(prefix, "schemaVersion"), top["schemaVersion"])
	if v, ok := top["limits"]; ok {
		doc.Limits = parseLimits(errs, join(prefix, "limits"), v)
	}
	if v, ok := top["mcc"]; ok {
		doc.MCC = parseLists(errs, join(prefix, "mcc"), v, checkMCC)
	}
	if v, ok := top["counterparties"]; ok {
		doc.Counterparties = parseLists(errs, join(prefix, "counterparties"), v, checkAddress)
		checkDisjoint(errs, join(prefix, "counterparties"), doc.Counterparties)
	}
	return doc, errs.Err()
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// object decodes raw as a JSON object whose keys are all known. A JSON null is an absent
// object (ok with no members) except at the top level, where the caller passes required.
func object(errs core.FieldErrors, field string, raw json.RawMessage, known []string) (map[string]json.RawMessage, bool) {
	name := field
	if name == "" {
		name = "document"
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || (m == nil && !isNull(raw)) {
		errs.Add(name, "must be a JSON object")
		return nil, false
	}
	if m == nil {
		return map[string]json.RawMessage{}, true
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	ok := true
	for _, k := range keys {
		if !contains(known, k) {
			errs.Add(join(field, k), "is not a known field")
			ok = false
		}
	}
	return m, ok
}

func isNull(raw json.RawMessage) bool { return bytes.Equal(bytes.TrimSpace(raw), []byte("null")) }

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func parseSchemaVersion(errs core.FieldErrors, field string, raw json.RawMessage) {
	if raw == nil {
		errs.Add(field, "is required and must be 1")
		return
	}
	if string(bytes.TrimSpace(raw)) != fmt.Sprint(SchemaVersion) {
		errs.Add(field, fmt.Sprintf("must be the integer %d", SchemaVersion))
	}
}

func parseLimits(errs core.FieldErrors, field string, raw json.RawMessage) Limits {
	m, ok := object(errs, field, raw, limitFields)
	if !ok {
		return Limits{}
	}
	return Limits{
		PerTransaction: parseCap(errs, join(field, "perTransactionUsd"), m["perTransactionUsd"]),
		Daily:          parseCap(errs, join(field, "dailyUsd"), m["dailyUsd"]),
		Weekly:         parseCap(errs, join(field, "weeklyUsd"), m["weeklyUsd"]),
		Monthly:        parseCap(errs, join(field, "monthlyUsd"), m["monthlyUsd"]),
	}
}

// parseCap reads a positive decimal string; absent or null is no cap.
func parseCap(errs core.FieldErrors, field string, raw json.RawMessage) *int64 {
	if raw == nil || isNull(raw) {
		return nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		errs.Add(field, "must be a positive decimal string such as \"100.00\", or null")
		return nil
	}
	units, err := core.ParseUSD(field, s)
	if err != nil {
		errs.Add(field, reasonOf(err, field))
		return nil
	}
	if units <= 0 {
		errs.Add(field, "must be positive")
		return nil
	}
	return &units
}

// reasonOf extracts the reason of a single-field validation error.
func reasonOf(err error, field string) string {
	if e, ok := err.(*core.Error); ok {
		if fields, ok := e.Details["fields"].(map[string]any); ok {
			if r, ok := fields[field].(string); ok {
				return r
			}
		}
	}
	return err.Error()
}

func parseLists(errs core.FieldErrors, field string, raw json.RawMessage, check func(string) string) Lists {
	m, ok := object(errs, field, raw, listFields)
	if !ok {
		return Lists{}
	}
	return Lists{
		Blocked: parseList(errs, join(field, "blocked"), m["blocked"], check),
		Allowed: parseList(errs, join(field, "allowed"), m["allowed"], check),
	}
}

// parseList reads an array of strings; absent or null is nil, [] is an empty non-nil list.
func parseList(errs core.FieldErrors, field string, raw json.RawMessage, check func(string) string) []string {
	if raw == nil || isNull(raw) {
		return nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		errs.Add(field, "must be an array of strings, or null")
		return nil
	}
	if len(list) > MaxListEntries {
		errs.Add(field, fmt.Sprintf("must have at most %d entries", MaxListEntries))
		return nil
	}
	if list == nil {
		list = []string{}
	}
	for i, s := range list {
		if reason := check(s); reason != "" {
			errs.Add(fmt.Sprintf("%s[%d]", field, i), reason)
		}
	}
	return list
}

func checkMCC(s string) string {
	if !mccEntryPattern.MatchString(s) {
		return "must be a merchant category code of 2 to 4 digits, as a string"
	}
	return ""
}

func checkAddress(s string) string {
	if !core.IsEVMAddress(s) {
		return "must be an address: 0x followed by 40 hex digits"
	}
	return ""
}

// checkDisjoint refuses an address on both counterparty lists (any case).
func checkDisjoint(errs core.FieldErrors, field string, l Lists) {
	blocked := map[string]bool{}
	for _, a := range l.Blocked {
		blocked[strings.ToLower(a)] = true
	}
	for i, a := range l.Allowed {
		if blocked[strings.ToLower(a)] {
			errs.Add(fmt.Sprintf("%s.allowed[%d]", field, i), "is also on "+field+".blocked; an address may be on one list only")
		}
	}
}

// ValidMCC reports whether s is a transaction's merchant category code: exactly four digits.
func ValidMCC(s string) bool { return len(s) == 4 && mccEntryPattern.MatchString(s) }

// ValidAddress reports whether s is 0x followed by 40 hex digits (any case).
func ValidAddress(s string) bool { return core.IsEVMAddress(s) }
