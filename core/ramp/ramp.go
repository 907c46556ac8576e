// Package ramp is the sandbox ramp (docs/api.md Ramp): a simulated fiat on-ramp that credits a
// wallet's Safe on chain, or off-ramp that debits it through a Safe payment. A ramp records
// only what never changes; its status is read from the linked drip or payment.
package ramp

import (
	"fmt"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
)

// Direction is ON (fiat to USDC) or OFF (USDC to fiat); requests spell it on or off.
type Direction string

const (
	DirectionOn  Direction = "ON"
	DirectionOff Direction = "OFF"
)

// Status is where a ramp stands (docs/api.md: SUBMITTED, CONFIRMED, FAILED).
type Status string

const (
	StatusSubmitted Status = "SUBMITTED"
	StatusConfirmed Status = "CONFIRMED"
	StatusFailed    Status = "FAILED"
)

// Codes of docs/api.md's RAMP_* errors and the ramp's 404.
const (
	CodeRampNotFound             core.Code = "RAMP_NOT_FOUND"
	CodeRampProviderNotAvailable core.Code = "RAMP_PROVIDER_NOT_AVAILABLE"
	CodeRampAmountTooLarge       core.Code = "RAMP_AMOUNT_TOO_LARGE"
	CodeRampDailyCap             core.Code = "RAMP_DAILY_CAP"
)

// ErrNotFound is the 404 of a ramp that is not the caller's.
var ErrNotFound = core.NotFound(CodeRampNotFound, "ramp")

// ProviderSimulated is the one provider this build serves.
const ProviderSimulated = "simulated"

// KnownProviders are the ramp providers a partner may name: simulated is served; the others
// are real ramp vendors this build recognizes but does not connect to, and answer
// RAMP_PROVIDER_NOT_AVAILABLE. Any other name is VALIDATION_FAILED.
var KnownProviders = []string{ProviderSimulated, "moonpay", "transak", "ramp_network", "stripe", "coinbase"}

// Ramp is one sandbox ramp. Exactly one of DripID (ON) and PaymentID (OFF) is set.
type Ramp struct {
	ID              string
	TenantID        string
	Environment     core.Environment
	WalletID        string
	Direction       Direction
	Provider        string
	AmountBaseUnits int64
	DripID          string
	PaymentID       string
	CreatedAt       time.Time
}

// Validate checks what the database row must hold.
func (r Ramp) Validate() error {
	switch {
	case r.ID == "" || r.TenantID == "" || r.WalletID == "" || r.Provider == "":
		return fmt.Errorf("ramp %q: missing id, tenant, wallet or provider", r.ID)
	case r.AmountBaseUnits <= 0:
		return fmt.Errorf("ramp %s: amount %d", r.ID, r.AmountBaseUnits)
	case r.Direction == DirectionOn && (r.DripID == "" || r.PaymentID != ""):
		return fmt.Errorf("ramp %s: an on-ramp links to one drip", r.ID)
	case r.Direction == DirectionOff && (r.PaymentID == "" || r.DripID != ""):
		return fmt.Errorf("ramp %s: an off-ramp links to one payment", r.ID)
	case r.Direction != DirectionOn && r.Direction != DirectionOff:
		return fmt.Errorf("ramp %s: direction %q", r.ID, r.Direction)
	}
	return nil
}

// Request is a validated POST /v1/ramps body.
type Request struct {
	WalletID        string
	Direction       Direction
	AmountBaseUnits int64
	Provider        string
}

// ParseRequest validates the body and names every invalid field in one VALIDATION_FAILED.
// A recognized provider other than simulated is RAMP_PROVIDER_NOT_AVAILABLE, once the rest
// of the body is valid.
func ParseRequest(walletID, direction, amount string, provider *string) (Request, error) {
	errs := core.FieldErrors{}
	out := Request{WalletID: strings.TrimSpace(walletID), Provider: ProviderSimulated}
	if out.WalletID == "" {
		errs.Add("walletId", "is required")
	}
	switch strings.TrimSpace(direction) {
	case "on":
		out.Direction = DirectionOn
	case "off":
		out.Direction = DirectionOff
	case "":
		errs.Add("direction", "is required")
	default:
		errs.Add("direction", "must be on or off")
	}
	if strings.TrimSpace(amount) == "" {
		errs.Add("amount", "is required")
	} else if units, err := core.ParseUSD("amount", amount); err != nil {
		errs.Add("amount", "must be a USD amount with at most 6 fraction digits")
	} else if units <= 0 {
		errs.Add("amount", "must be greater than zero")
	} else {
		out.AmountBaseUnits = units
	}
	if provider != nil {
		out.Provider = strings.ToLower(strings.TrimSpace(*provider))
		if !known(out.Provider) {
			errs.Add("provider", "must be one of "+strings.Join(KnownProviders, ", "))
		}
	}
	if err := errs.Err(); err != nil {
		return Request{}, err
	}
	if out.Provider != ProviderSimulated {
		return Request{}, core.E(CodeRampProviderNotAvailable,
			"ramp provider %s is not available in this build; use simulated", out.Provider)
	}
	return out, nil
}

func known(p string) bool {
	for _, k := range KnownProviders {
		if k == p {
			return true
		}
	}
	return false
}

// Limits are the sandbox on-ramp caps (docs/api.md Limits, Sandbox ramps), in USD base units.
type Limits struct {
	PerTransaction int64
	PerTenantDaily int64
}

// DailyWindow is the rolling window of the per-tenant cap.
const DailyWindow = 24 * time.Hour

// CheckAmount refuses an on-ramp above the per-transaction cap.
func (l Limits) CheckAmount(amount int64) error {
	if amount > l.PerTransaction {
		return core.E(CodeRampAmountTooLarge, "an on-ramp is at most %s USD", core.FormatUSD(l.PerTransaction)).
			WithDetails(map[string]any{"maxAmountUsd": core.FormatUSD(l.PerTransaction)})
	}
	return nil
}

// CheckDaily refuses an on-ramp that would take the tenant's last 24 h past the daily cap.
func (l Limits) CheckDaily(usedInWindow, amount int64) error {
	if usedInWindow+amount > l.PerTenantDaily {
		remaining := max(l.PerTenantDaily-usedInWindow, 0)
		return core.E(CodeRampDailyCap, "on-ramps are at most %s USD per tenant per 24 hours; %s USD remain",
			core.FormatUSD(l.PerTenantDaily), core.FormatUSD(remaining)).
			WithDetails(map[string]any{"dailyCapUsd": core.FormatUSD(l.PerTenantDaily), "remainingUsd": core.FormatUSD(remaining)})
	}
	return nil
}

// LiveStatus is the ramp's status from its linked drip's (ON) or payment's (OFF) status:
// CONFIRMED once the money moved on chain, FAILED when it never will, SUBMITTED meanwhile.
func LiveStatus(d Direction, linkedStatus string) Status {
	switch {
	case d == DirectionOn && linkedStatus == "CONFIRMED", d == DirectionOff && linkedStatus == "COMPLETED":
		return StatusConfirmed
	case linkedStatus == "FAILED", linkedStatus == "CANCELLED":
		return StatusFailed
	}
	return StatusSubmitted
}

// FiatRef is the simulated fiat reference of a CONFIRMED ramp, derived from its id so that
// every read shows the same one; "" before the ramp is CONFIRMED.
func FiatRef(r Ramp, s Status) string {
	if s != StatusConfirmed {
		return ""
	}
	suffix := r.ID
	if i := strings.IndexByte(suffix, '_'); i >= 0 {
		suffix = suffix[i+1:]
	}
	return "simfiat_" + strings.ToLower(string(r.Direction)) + "_" + suffix
}
