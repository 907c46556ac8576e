package recipient

import (
	"math/big"
	"regexp"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
)

// DestinationType is a payout destination's rail (docs/api.md PayoutDestination).
type DestinationType string

const (
	DestOnchainWallet  DestinationType = "ONCHAIN_WALLET"
	DestAppWalletA     DestinationType = "APP_WALLET_A"
	DestAppWalletB     DestinationType = "APP_WALLET_B"
	DestAppWalletC     DestinationType = "APP_WALLET_C" // added through a provider link session, later
	DestUSBankACH      DestinationType = "US_BANK_ACH"
	DestSEPA           DestinationType = "SEPA"
	DestServiceBalance DestinationType = "SERVICE_BALANCE"
)

// DestinationStatus is a destination's lifecycle state; routing considers only ACTIVE.
type DestinationStatus string

const (
	DestActive   DestinationStatus = "ACTIVE"
	DestDisabled DestinationStatus = "DISABLED"
	// DestRevoked: the payout provider reported the destination revoked (it refused a payout
	// to it); it is never routed again. The recipient adds a different destination.
	DestRevoked DestinationStatus = "REVOKED"
)

// Error codes of payout destinations.
const (
	CodeDestinationNotFound         core.Code = "PAYOUT_DESTINATION_NOT_FOUND"
	CodeDestinationRailConstraint   core.Code = "DESTINATION_RAIL_CONSTRAINT"
	CodeDestinationRailNotAvailable core.Code = "DESTINATION_RAIL_NOT_AVAILABLE"
	CodeCredentialRequired          core.Code = "CREDENTIAL_REQUIRED"
)

// Routable reports whether the rail has a payout provider in this version. US_BANK_ACH and
// SEPA are creatable but produce no routes until their rails ship.
func (t DestinationType) Routable() bool {
	switch t {
	case DestOnchainWallet, DestAppWalletA, DestAppWalletB, DestServiceBalance:
		return true
	}
	return false
}

// DestinationInput is the create body: a type and that type's identifier fields.
type DestinationInput struct {
	Type                   string
	Asset, Network         string
	Address                string
	Email, Phone, Handle   string
	Country, Currency      string
	RoutingNumber          string
	AccountNumber          string
	IBAN                   string
	AllowAutomaticFallback bool
}

// Identifier is a destination's validated identifier: the fields that say where money goes.
// It is immutable; it is stored encrypted and only Masked leaves the service.
type Identifier struct {
	Asset         string `json:"asset,omitempty"`
	Network       string `json:"network,omitempty"`
	Address       string `json:"address,omitempty"`
	Email         string `json:"email,omitempty"`
	Phone         string `json:"phone,omitempty"`
	Handle        string `json:"handle,omitempty"`
	Country       string `json:"country,omitempty"`
	Currency      string `json:"currency,omitempty"`
	RoutingNumber string `json:"routingNumber,omitempty"`
	AccountNumber string `json:"accountNumber,omitempty"`
	IBAN          string `json:"iban,omitempty"`
}

// Destination is a recipient's payout destination.
type Destination struct {
	ID                     string
	TenantID               string
	Environment            core.Environment
	Type                   DestinationType
	Status                 DestinationStatus
	Masked                 string
	AllowAutomaticFallback bool
	IdentifierCiphertext   []byte // nil for SERVICE_BALANCE
	CreatedAt              time.Time
}

// Supported on-chain networks and their address shapes. Addresses are stored verbatim.
var networkAddress = map[string]func(string) bool{
	"eip155:84532": core.IsEVMAddress,
	"eip155:8453":  core.IsEVMAddress,
	"solana":       regexp.MustCompile(`^[1-9A-HJ-NP-Za-km-z]{32,44}$`).MatchString,
}

var (
	emailShape  = regexp.MustCompile(`^[^@\s]{1,64}@[^@\s]+\.[^@\s]{2,}$`)
	handleShape = regexp.MustCompile(`^\$?[A-Za-z0-9_.-]{2,32}$`)
	digitsShape = regexp.MustCompile(`^[0-9]+$`)
	ibanShape   = regexp.MustCompile(`^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$`)
)

// ValidateDestination checks the input of one type and returns its identifier and masked
// label. Unknown types are DESTINATION_RAIL_NOT_AVAILABLE; the third app-wallet type is a
// VALIDATION_FAILED (it is added through a provider link session, not this endpoint).
func ValidateDestination(in DestinationInput) (DestinationType, Identifier, string, error) {
	t := DestinationType(strings.TrimSpace(in.Type))
	switch t {
	case DestOnchainWallet:
		id, masked, err := validateOnchain(in)
		return t, id, masked, err
	case DestAppWalletA:
		id, masked, err := validateAppWalletA(in)
		return t, id, masked, err
	case DestAppWalletB:
		id, masked, err := validateAppWalletB(in)
		return t, id, masked, err
	case DestUSBankACH:
		id, masked, err := validateACH(in)
		return t, id, masked, err
	case DestSEPA:
		id, masked, err := validateSEPA(in)
		return t, id, masked, err
	case DestServiceBalance:
		return t, Identifier{}, "Service balance", onlyFields(in)
	case DestAppWalletC:
		return "", Identifier{}, "", core.Invalid("type", "APP_WALLET_C destinations are added through a provider link session, not this endpoint")
	case "":
		return "", Identifier{}, "", core.Invalid("type", "is required")
	}
	return "", Identifier{}, "", core.E(CodeDestinationRailNotAvailable, "destination type %q is not available", truncate(string(t), 40))
}

func validateOnchain(in DestinationInput) (Identifier, string, error) {
	f := core.FieldErrors{}
	if in.Asset != "USDC" {
		f.Add("asset", "must be USDC")
	}
	shape, ok := networkAddress[in.Network]
	if !ok {
		f.Add("network", "must be eip155:84532, eip155:8453 or solana")
	} else if !shape(in.Address) {
		f.Add("address", "is not an address of network "+in.Network)
	}
	extraneous(f, in, "asset", "network", "address")
	if err := f.Err(); err != nil {
		return Identifier{}, "", err
	}
	return Identifier{Asset: in.Asset, Network: in.Network, Address: in.Address},
		"USDC on " + in.Network + " " + in.Address[:6] + "…" + in.Address[len(in.Address)-4:], nil
}

func validateAppWalletA(in DestinationInput) (Identifier, string, error) {
	f := core.FieldErrors{}
	if (in.Email == "") == (in.Phone == "") {
		f.Add("email", "exactly one of email or phone is required")
	}
	extraneous(f, in, "email", "phone")
	if err := f.Err(); err != nil {
		return Identifier{}, "", err
	}
	if in.Email != "" {
		if !emailShape.MatchString(in.Email) {
			return Identifier{}, "", core.Invalid("email", "is not an email address")
		}
		return Identifier{Email: in.Email}, maskEmail(in.Email), nil
	}
	p, err := ParsePhone("phone", in.Phone)
	if err != nil {
		return Identifier{}, "", err
	}
	return Identifier{Phone: p.E164}, MaskPhone(p.E164), nil
}

func validateAppWalletB(in DestinationInput) (Identifier, string, error) {
	f := core.FieldErrors{}
	if (in.Phone == "") == (in.Handle == "") {
		f.Add("phone", "exactly one of phone or handle is required")
	}
	extraneous(f, in, "phone", "handle", "country", "currency")
	if err := f.Err(); err != nil {
		return Identifier{}, "", err
	}
	country, currency := defaultTo(in.Country, "US"), defaultTo(in.Currency, "USD")
	id := Identifier{Country: country, Currency: currency}
	masked := ""
	if in.Phone != "" {
		p, err := ParsePhone("phone", in.Phone)
		if err != nil {
			return Identifier{}, "", err
		}
		if p.Region != "US" {
			country = p.Region
		}
		id.Phone, masked = p.E164, MaskPhone(p.E164)
	} else {
		if !handleShape.MatchString(in.Handle) {
			return Identifier{}, "", core.Invalid("handle", "must be 2 to 32 letters, digits, '_', '.' or '-'")
		}
		id.Handle, masked = in.Handle, "@"+in.Handle[:1]+"•••"
	}
	if country != "US" || currency != "USD" {
		return Identifier{}, "", core.E(CodeDestinationRailConstraint, "APP_WALLET_B pays out only in the US and in USD")
	}
	return id, masked, nil
}

func validateACH(in DestinationInput) (Identifier, string, error) {
	f := core.FieldErrors{}
	if len(in.RoutingNumber) != 9 || !digitsShape.MatchString(in.RoutingNumber) || !abaChecksum(in.RoutingNumber) {
		f.Add("routingNumber", "must be a 9-digit ABA routing number")
	}
	if len(in.AccountNumber) < 4 || len(in.AccountNumber) > 17 || !digitsShape.MatchString(in.AccountNumber) {
		f.Add("accountNumber", "must be 4 to 17 digits")
	}
	extraneous(f, in, "routingNumber", "accountNumber")
	if err := f.Err(); err != nil {
		return Identifier{}, "", err
	}
	return Identifier{RoutingNumber: in.RoutingNumber, AccountNumber: in.AccountNumber},
		"ACH ••••" + in.AccountNumber[len(in.AccountNumber)-4:], nil
}

func validateSEPA(in DestinationInput) (Identifier, string, error) {
	iban := strings.ToUpper(strings.ReplaceAll(in.IBAN, " ", ""))
	f := core.FieldErrors{}
	if !ibanShape.MatchString(iban) || !ibanChecksum(iban) {
		f.Add("iban", "is not a valid IBAN")
	}
	extraneous(f, in, "iban")
	if err := f.Err(); err != nil {
		return Identifier{}, "", err
	}
	return Identifier{IBAN: iban}, iban[:2] + "•• •••• " + iban[len(iban)-4:], nil
}

// extraneous refuses identifier fields that do not belong to the type, so a request means one
// thing only.
func extraneous(f core.FieldErrors, in DestinationInput, allowed ...string) {
	present := map[string]bool{
		"asset": in.Asset != "", "network": in.Network != "", "address": in.Address != "", "email": in.Email != "",
		"phone": in.Phone != "", "handle": in.Handle != "", "country": in.Country != "", "currency": in.Currency != "",
		"routingNumber": in.RoutingNumber != "", "accountNumber": in.AccountNumber != "", "iban": in.IBAN != "",
	}
	for _, a := range allowed {
		delete(present, a)
	}
	for name, set := range present {
		if set {
			f.Add(name, "is not a field of this destination type")
		}
	}
}

func onlyFields(in DestinationInput, allowed ...string) error {
	f := core.FieldErrors{}
	extraneous(f, in, allowed...)
	return f.Err()
}

func abaChecksum(s string) bool {
	w := []int{3, 7, 1}
	sum := 0
	for i := 0; i < 9; i++ {
		sum += int(s[i]-'0') * w[i%3]
	}
	return sum%10 == 0
}

func ibanChecksum(iban string) bool {
	rearranged := iban[4:] + iban[:4]
	var digits strings.Builder
	for _, c := range rearranged {
		if c >= 'A' && c <= 'Z' {
			digits.WriteString(itoa(int(c-'A') + 10))
		} else {
			digits.WriteRune(c)
		}
	}
	n, ok := new(big.Int).SetString(digits.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

func maskEmail(email string) string {
	at := strings.LastIndexByte(email, '@')
	return email[:1] + "•••" + email[at:]
}

func defaultTo(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n]
	}
	return s
}
