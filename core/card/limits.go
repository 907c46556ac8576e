package card

import (
	"regexp"
	"sort"

	"github.com/corridorhq/corridor/core"
)

// Limits are a card's software spend limits. A nil cap is unlimited; BlockedMCC is never nil
// once normalised (empty: nothing blocked); AllowedMCC nil means no allowlist, and an empty
// non-nil allowlist allows nothing. MCC entries are kept as sent (2 to 4 digits) and compared
// zero-padded to four digits.
type Limits struct {
	PerTransaction, Daily, Weekly, Monthly *int64
	BlockedMCC                             []string
	AllowedMCC                             []string
}

// CapPatch is one cap field of a limits body: Set when the field was sent; Value nil when it
// was sent as null (clear the cap).
type CapPatch struct {
	Set   bool
	Value *string
}

// ListPatch is one MCC list field of a limits body: Set when sent; Null when sent as null.
type ListPatch struct {
	Set   bool
	Null  bool
	Value []string
}

// LimitsPatch is a PUT /v1/cards/{id}/limits body (and the optional limits of an issue call):
// only sent fields change.
type LimitsPatch struct {
	PerTransactionUsd, DailyUsd, WeeklyUsd, MonthlyUsd CapPatch
	BlockedMcc, AllowedMcc                             ListPatch
}

var mccPattern = regexp.MustCompile(`^[0-9]{2,4}$`)

// maxMCCEntries bounds a list's length.
const maxMCCEntries = 500

// Apply returns l with the patch's sent fields changed: a cap sent as null is cleared, a sent
// cap must be a positive decimal with at most 6 fraction digits; blockedMcc replaces the list
// (null empties it); allowedMcc replaces the allowlist (null removes it). Any bad field is
// VALIDATION_FAILED naming every bad field, and l is returned unchanged.
func (l Limits) Apply(p LimitsPatch) (Limits, error) {
	errs := core.FieldErrors{}
	out := l.clone()
	for _, c := range []struct {
		field string
		patch CapPatch
		dst   **int64
	}{
		{"perTransactionUsd", p.PerTransactionUsd, &out.PerTransaction},
		{"dailyUsd", p.DailyUsd, &out.Daily},
		{"weeklyUsd", p.WeeklyUsd, &out.Weekly},
		{"monthlyUsd", p.MonthlyUsd, &out.Monthly},
	} {
		if !c.patch.Set {
			continue
		}
		if c.patch.Value == nil {
			*c.dst = nil
			continue
		}
		v, err := core.ParseUSD(c.field, *c.patch.Value)
		if err != nil {
			addFieldErr(errs, c.field, err)
			continue
		}
		if v <= 0 {
			errs.Add(c.field, "must be a positive amount (or null for no cap)")
			continue
		}
		*c.dst = &v
	}
	if p.BlockedMcc.Set {
		if list, ok := mccList(errs, "blockedMcc", p.BlockedMcc.Value); ok {
			out.BlockedMCC = list
		}
	}
	if p.AllowedMcc.Set {
		if p.AllowedMcc.Null {
			out.AllowedMCC = nil
		} else if list, ok := mccList(errs, "allowedMcc", p.AllowedMcc.Value); ok {
			out.AllowedMCC = list
		}
	}
	if err := errs.Err(); err != nil {
		return l, err
	}
	if out.BlockedMCC == nil {
		out.BlockedMCC = []string{}
	}
	return out, nil
}

func addFieldErr(errs core.FieldErrors, field string, err error) {
	if e, ok := err.(*core.Error); ok {
		if fields, ok := e.Details["fields"].(map[string]any); ok {
			for k, v := range fields {
				if reason, ok := v.(string); ok {
					errs.Add(k, reason)
				}
			}
			return
		}
		errs.Add(field, e.Message)
		return
	}
	errs.Add(field, err.Error())
}

// mccList validates and dedupes a list, keeping entries as sent in ascending order.
func mccList(errs core.FieldErrors, field string, in []string) ([]string, bool) {
	if len(in) > maxMCCEntries {
		errs.Add(field, "has more than 500 entries")
		return nil, false
	}
	seen := map[string]bool{}
	out := make([]string, 0, len(in))
	ok := true
	for _, s := range in {
		if !mccPattern.MatchString(s) {
			errs.Add(field, `entries must be merchant category codes of 2 to 4 digits, such as "5411"`)
			ok = false
			break
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out, ok
}

func (l Limits) clone() Limits {
	out := l
	if l.BlockedMCC != nil {
		out.BlockedMCC = append([]string{}, l.BlockedMCC...)
	}
	if l.AllowedMCC != nil {
		out.AllowedMCC = append([]string{}, l.AllowedMCC...)
	}
	return out
}

// Normalise4 pads an MCC entry to four digits ("54" → "0054"), the form authorizations carry.
func Normalise4(s string) string {
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

func containsMCC(list []string, mcc string) bool {
	for _, e := range list {
		if Normalise4(e) == mcc {
			return true
		}
	}
	return false
}
