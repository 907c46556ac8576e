package safepay

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/wallet"
)

// Bounds of a payment request.
const (
	// MaxMemoLength bounds memo in characters.
	MaxMemoLength = 500
	// AssetUSDC is the only asset a Safe payment moves today.
	AssetUSDC = "usdc"
)

// DestinationInput is the destination union as a client sends it: a type tag and the members
// of that type. ChainID is a pointer so that "absent" and "0" differ.
type DestinationInput struct {
	Type     string
	Handle   string
	Email    string
	Address  string
	ChainID  *int64
	WalletID string
}

// Destination is a validated destination, not yet resolved to an address (handle, email and
// wallet need the store; address needs the source wallet's chain).
type Destination struct {
	Type     DestinationType
	Handle   string // handle: as wallet.ParseHandle normalises it
	Email    string // email: lower case
	Address  string // address: EIP-55
	ChainID  int64  // address: the chain the client named
	WalletID string // wallet
}

// Request is a propose request as a client sends it.
type Request struct {
	SourceWalletID string
	Destination    *DestinationInput // nil: absent
	AmountValue    string
	AmountAsset    string // "" = usdc
	Memo           string
	// TwofaChallengeID names a satisfied two-factor challenge this propose redeems.
	TwofaChallengeID string
}

// Order is a validated propose request.
type Order struct {
	SourceWalletID  string
	Destination     Destination
	Asset           string
	AmountBaseUnits int64
	Memo            string
	// Call is set for a transaction proposal (KindTransaction); AmountBaseUnits is then 0.
	Call *Call
}

// ParseOrder validates a propose request and names every invalid field (destination.address,
// amount.value, …) in one VALIDATION_FAILED error. Amounts are exact: more than six fraction
// digits is refused, never rounded, and zero is refused.
func ParseOrder(in Request) (Order, error) {
	errs := core.FieldErrors{}
	out := Order{SourceWalletID: strings.TrimSpace(in.SourceWalletID), Memo: in.Memo}
	if out.SourceWalletID == "" {
		errs.Add("sourceWalletId", "is required")
	}
	if in.Destination == nil {
		errs.Add("destination", "is required: an object with type handle, email, address or wallet")
	} else {
		out.Destination = parseDestination(*in.Destination, errs)
	}
	out.Asset, out.AmountBaseUnits = parseAmount(in.AmountValue, in.AmountAsset, errs)
	if utf8.RuneCountInString(in.Memo) > MaxMemoLength {
		errs.Add("memo", fmt.Sprintf("must be at most %d characters", MaxMemoLength))
	} else if why := core.TextProblem(in.Memo); why != "" {
		errs.Add("memo", why)
	}
	return out, errs.Err()
}

func parseAmount(value, asset string, errs core.FieldErrors) (string, int64) {
	asset = strings.ToLower(strings.TrimSpace(asset))
	if asset == "" {
		asset = AssetUSDC
	}
	if asset != AssetUSDC {
		errs.Add("amount.asset", "must be usdc")
	}
	units, err := core.ParseUSD("amount.value", value)
	switch {
	case err != nil:
		errs.Add("amount.value", fieldReason(err, "amount.value"))
	case units == 0:
		errs.Add("amount.value", "must be greater than 0")
	}
	return asset, units
}

// members lists which union members each destination type takes, for "not a field of" errors.
var members = map[DestinationType][]string{
	DestinationHandle:  {"handle"},
	DestinationEmail:   {"email"},
	DestinationAddress: {"address", "chainId"},
	DestinationWallet:  {"walletId"},
}

func parseDestination(in DestinationInput, errs core.FieldErrors) Destination {
	typ := DestinationType(strings.ToLower(strings.TrimSpace(in.Type)))
	if _, ok := members[typ]; !ok {
		if in.Type == "" {
			errs.Add("destination.type", "is required: handle, email, address or wallet")
		} else {
			errs.Add("destination.type", "must be one of handle, email, address, wallet")
		}
		return Destination{}
	}
	present := map[string]bool{
		"handle": in.Handle != "", "email": in.Email != "", "address": in.Address != "",
		"chainId": in.ChainID != nil, "walletId": in.WalletID != "",
	}
	for _, name := range members[typ] {
		delete(present, name)
	}
	for name, set := range present {
		if set {
			errs.Add("destination."+name, fmt.Sprintf("is not a field of a %s destination", typ))
		}
	}
	out := Destination{Type: typ}
	switch typ {
	case DestinationHandle:
		// The directory's own rules (wallet.ParseHandle): a malformed handle is a 400 here
		// rather than a handle that is not found.
		handle, err := wallet.ParseHandle(in.Handle)
		if err != nil {
			errs.Add("destination.handle", err.Error())
		}
		out.Handle = handle
	case DestinationEmail:
		email, err := tenant.ValidateEmail("destination.email", in.Email)
		if err != nil {
			errs.Add("destination.email", fieldReason(err, "destination.email"))
		}
		out.Email = email
	case DestinationAddress:
		if in.Address == "" {
			errs.Add("destination.address", "is required")
		} else if addr, err := tenant.ValidateAddress("destination.address", strings.TrimSpace(in.Address)); err != nil {
			errs.Add("destination.address", fieldReason(err, "destination.address"))
		} else {
			out.Address = addr
		}
		if in.ChainID == nil {
			errs.Add("destination.chainId", "is required for an address destination")
		} else {
			out.ChainID = *in.ChainID
		}
	case DestinationWallet:
		out.WalletID = strings.TrimSpace(in.WalletID)
		if out.WalletID == "" {
			errs.Add("destination.walletId", "is required")
		}
	}
	return out
}

// fieldReason extracts the reason a single-field validation error gives for field.
func fieldReason(err error, field string) string {
	if e, ok := err.(*core.Error); ok {
		if fields, ok := e.Details["fields"].(map[string]any); ok {
			if r, ok := fields[field].(string); ok {
				return r
			}
		}
	}
	return err.Error()
}
