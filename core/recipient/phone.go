// Package recipient holds the pure rules of off-ramp recipients: phone numbers (E.164 through
// a port of libphonenumber), phone aliases and their SMS codes, BUSINESS_IDENTITY credentials
// and payout destinations with each type's identifier validation and masking.
package recipient

import (
	"strings"

	"github.com/nyaruka/phonenumbers"

	"github.com/corridorhq/corridor/core"
)

// maxPhoneInputBytes bounds what is handed to the parser.
const maxPhoneInputBytes = 32

// Phone is a validated phone number in E.164 form ("+14155550123") with its region.
type Phone struct {
	E164   string
	Region string // ISO 3166-1 alpha-2, e.g. "US"
}

// ParsePhone accepts only E.164 input (a leading "+", country code, national number) that
// libphonenumber reports as a valid number, and returns its canonical E.164 form.
func ParsePhone(field, s string) (Phone, error) {
	s = strings.TrimSpace(s)
	if s == "" || len(s) > maxPhoneInputBytes || s[0] != '+' {
		return Phone{}, core.Invalid(field, "must be an E.164 phone number such as +14155550123")
	}
	for _, c := range s[1:] {
		if c < '0' || c > '9' {
			return Phone{}, core.Invalid(field, "must be an E.164 phone number: '+' then digits only")
		}
	}
	n, err := phonenumbers.Parse(s, "")
	if err != nil || !phonenumbers.IsValidNumber(n) {
		return Phone{}, core.Invalid(field, "is not a valid phone number")
	}
	return Phone{E164: phonenumbers.Format(n, phonenumbers.E164), Region: phonenumbers.GetRegionCodeForNumber(n)}, nil
}

// MaskPhone keeps the country code and the last two digits: "+1 ••• ••• ••23". It never
// reveals more than those, whatever the input, so it is safe for responses and logs.
func MaskPhone(e164 string) string {
	n, err := phonenumbers.Parse(e164, "")
	if err != nil {
		return "•••"
	}
	national := phonenumbers.GetNationalSignificantNumber(n)
	if len(national) < 4 {
		return "+" + itoa(int(n.GetCountryCode())) + " •••"
	}
	return "+" + itoa(int(n.GetCountryCode())) + " " + strings.Repeat("•", len(national)-2) + national[len(national)-2:]
}

func itoa(v int) string {
	if v == 0 {
		return "0"
	}
	var b [12]byte
	i := len(b)
	for v > 0 {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
	}
	return string(b[i:])
}
