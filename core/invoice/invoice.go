// Package invoice holds the domain of escrow invoices and verifiable bills: the invoice state
// table of docs/api.md as data, the poller's decision (funds win over expiry), the settlement
// guards, and the EIP-712 InvoiceAuthorization a bill is signed with. Everything here is pure;
// the capability in app/invoices reads the chain and the store.
package invoice

import (
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/wallet"
)

// Codes of the invoices capability.
const (
	CodeInvoiceNotFound    core.Code = "INVOICE_NOT_FOUND"
	CodeBillNotFound       core.Code = "BILL_NOT_FOUND"
	CodeNothingToRefund    core.Code = "INVOICE_NOTHING_TO_REFUND"
	CodeSettlementInFlight core.Code = "SETTLEMENT_IN_FLIGHT"
)

// Id prefixes of invoices and bills.
const (
	PrefixInvoice = "inv"
	PrefixBill    = "bil"
)

// Limits of the capability.
const (
	MaxPayeeNameBytes   = 200
	MaxDescriptionBytes = 2000
	MaxEvidenceBytes    = 4000
	// MaxAdvanceSeconds bounds one call of the sandbox clock helper (a year).
	MaxAdvanceSeconds = 366 * 24 * 3600
	// MaxClockOffsetSeconds bounds how far ahead the helper moves an invoice's clock in all:
	// a hundred such years. Unbounded, the offset ran past what a time.Duration holds and the
	// invoice's clock wrapped into the past, where an expired invoice could be released again.
	MaxClockOffsetSeconds = 100 * MaxAdvanceSeconds
)

// Invoice is an escrow invoice: the payer funds a 2-of-3 hold Safe (payer, payee, arbiter),
// and two of the three sign its release to the payee or its refund to the payer.
type Invoice struct {
	ID               string
	TenantID         string
	Environment      core.Environment
	PayeeName        string
	Description      string
	AmountBaseUnits  int64
	PayerAddress     string
	PayeeAddress     string
	ArbiterAddress   string
	ChainID          int64
	Status           Status
	HoldWalletID     string
	HoldAddress      string
	ReleasePaymentID string
	RefundPaymentID  string
	Evidence         string
	ExpiresAt        *time.Time
	FundedAt         *time.Time
	// ClockOffsetSeconds moves this invoice's clock ahead (the TEST clock helper): the poller
	// and the expiry checks see now plus the offset.
	ClockOffsetSeconds int64
	CreatedAt          time.Time
	UpdatedAt          time.Time
}

// Now is the invoice's clock: the real time plus its sandbox offset.
func (i Invoice) Now(real time.Time) time.Time {
	const day = 24 * 3600
	return real.UTC().AddDate(0, 0, int(i.ClockOffsetSeconds/day)).Add(time.Duration(i.ClockOffsetSeconds%day) * time.Second)
}

// Expired reports whether expiresAt has passed at now (an invoice without one never expires).
func (i Invoice) Expired(now time.Time) bool {
	return i.ExpiresAt != nil && !now.Before(*i.ExpiresAt)
}

// SettlementPaymentID is the pending release or refund payment ("" when none is linked).
func (i Invoice) SettlementPaymentID() string {
	if i.ReleasePaymentID != "" {
		return i.ReleasePaymentID
	}
	return i.RefundPaymentID
}

// Draft is a validated create request.
type Draft struct {
	PayeeName, Description                   string
	AmountBaseUnits                          int64
	PayerAddress, PayeeAddress, ArbiterAddrs string
	ChainID                                  int64
	ExpiresAt                                *time.Time
}

// DraftInput is the body of POST /v1/invoices, as received.
type DraftInput struct {
	AmountUsd, PayerAddress, PayeeAddress, ArbiterAddress string
	PayeeName, Description                                string
	ChainID                                               *int64
	ExpiresAt                                             *time.Time
}

// ValidateDraft checks a create request: a positive amount, three valid and distinct addresses
// (the arbiter defaults to the platform's), the environment's chain, an expiry in the future.
// Every refusal names its field.
func ValidateDraft(env core.Environment, in DraftInput, platformArbiter string, now time.Time) (Draft, error) {
	errs := core.FieldErrors{}
	d := Draft{PayeeName: strings.TrimSpace(in.PayeeName), Description: strings.TrimSpace(in.Description), ExpiresAt: in.ExpiresAt}
	amount, err := core.ParseUSD("amountUsd", in.AmountUsd)
	switch {
	case err != nil:
		mergeField(errs, "amountUsd", err)
	case amount <= 0:
		errs.Add("amountUsd", "must be greater than zero")
	}
	d.AmountBaseUnits = amount
	d.PayerAddress = address(errs, "payerAddress", in.PayerAddress, true)
	d.PayeeAddress = address(errs, "payeeAddress", in.PayeeAddress, true)
	arbiter := strings.TrimSpace(in.ArbiterAddress)
	if arbiter == "" {
		arbiter = platformArbiter
	}
	d.ArbiterAddrs = address(errs, "arbiterAddress", arbiter, true)
	distinct(errs, d.PayerAddress, d.PayeeAddress, d.ArbiterAddrs)
	if len(d.PayeeName) > MaxPayeeNameBytes {
		errs.Add("payeeName", "must be at most 200 bytes")
	} else if why := core.TextProblem(d.PayeeName); why != "" {
		errs.Add("payeeName", why)
	}
	if len(d.Description) > MaxDescriptionBytes {
		errs.Add("description", "must be at most 2000 bytes")
	} else if why := core.TextProblem(d.Description); why != "" {
		errs.Add("description", why)
	}
	d.ChainID = wallet.DefaultChain(env)
	if in.ChainID != nil && *in.ChainID != d.ChainID {
		errs.Add("chainId", "must be the environment's chain")
	}
	if in.ExpiresAt != nil && !in.ExpiresAt.After(now) {
		errs.Add("expiresAt", "must be in the future")
	}
	return d, errs.Err()
}

func address(errs core.FieldErrors, field, s string, required bool) string {
	s = strings.TrimSpace(s)
	if s == "" {
		if required {
			errs.Add(field, "is required")
		}
		return ""
	}
	a, err := tenant.ValidateAddress(field, s)
	if err != nil {
		mergeField(errs, field, err)
		return ""
	}
	return a
}

func distinct(errs core.FieldErrors, payer, payee, arbiter string) {
	switch {
	case payer != "" && payee != "" && strings.EqualFold(payer, payee):
		errs.Add("payeeAddress", "must differ from payerAddress")
	case arbiter != "" && payer != "" && strings.EqualFold(arbiter, payer):
		errs.Add("arbiterAddress", "must differ from payerAddress")
	case arbiter != "" && payee != "" && strings.EqualFold(arbiter, payee):
		errs.Add("arbiterAddress", "must differ from payeeAddress")
	}
}

// mergeField records err's reason against field.
func mergeField(errs core.FieldErrors, field string, err error) {
	if e, ok := err.(*core.Error); ok {
		if fields, ok := e.Details["fields"].(map[string]any); ok {
			for k, v := range fields {
				reason, _ := v.(string)
				errs.Add(k, reason)
			}
			return
		}
		errs.Add(field, e.Message)
		return
	}
	errs.Add(field, err.Error())
}
