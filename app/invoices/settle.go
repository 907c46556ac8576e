package invoices

import (
	"context"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/tenant"
)

// SettlementRead is a validated release or refund with the hold Safe's balance and the
// payment's chain reads, made before the unit of work that records them.
type SettlementRead struct {
	tenantID, invoiceID string
	kind                invoice.Settlement
	balance             int64
	payment             PaymentRead
}

// ReadSettlement validates a release or refund and reads the chain for it (outside any unit of
// work): the hold Safe's balance, then the payment's nonce and threshold. ownerAddress, when
// given, must be one of the three owners: it names who asked.
func (s *Service) ReadSettlement(ctx context.Context, p auth.Principal, id string, kind invoice.Settlement, ownerAddress, challengeID string) (SettlementRead, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesRelease); err != nil {
		return SettlementRead{}, err
	}
	inv, err := s.find(ctx, p, id)
	if err != nil {
		return SettlementRead{}, err
	}
	if err := checkOwner(inv, ownerAddress); err != nil {
		return SettlementRead{}, err
	}
	// The status and in-flight refusals come before any chain read.
	if _, err := invoice.CheckSettlement(inv, kind, inv.AmountBaseUnits, inv.Now(s.clock.Now())); err != nil && !isNothingToRefund(err) {
		return SettlementRead{}, err
	}
	balance, err := s.holdBalance(ctx, inv)
	if err != nil {
		return SettlementRead{}, err
	}
	amount, err := invoice.CheckSettlement(inv, kind, balance, inv.Now(s.clock.Now()))
	if err != nil {
		return SettlementRead{}, err
	}
	req := settlementRequest(inv, kind, amount)
	req.TwofaChallengeID = strings.TrimSpace(challengeID)
	read, err := s.payments.ReadPayment(ctx, kernel.Acting(p, auth.ScopePaymentsCreate), req)
	if err != nil {
		return SettlementRead{}, err
	}
	return SettlementRead{tenantID: p.TenantID, invoiceID: inv.ID, kind: kind, balance: balance, payment: read}, nil
}

func isNothingToRefund(err error) bool {
	e, ok := err.(*core.Error)
	return ok && e.Code == invoice.CodeNothingToRefund
}

func checkOwner(inv invoice.Invoice, owner string) error {
	owner = strings.TrimSpace(owner)
	if owner == "" {
		return nil
	}
	addr, err := tenant.ValidateAddress("ownerAddress", owner)
	if err != nil {
		return err
	}
	for _, o := range []string{inv.PayerAddress, inv.PayeeAddress, inv.ArbiterAddress} {
		if strings.EqualFold(o, addr) {
			return nil
		}
	}
	return core.Invalid("ownerAddress", "must be the payer, the payee or the arbiter of the invoice")
}

// Settle proposes the settlement payment and links it, in one unit of work; the invoice moves
// to RELEASED or REFUNDED when the payment completes (the poller watches it). The status and
// the one-settlement-in-flight rule are checked again under the invoice's lock, so two
// concurrent releases propose one payment.
func (s *Service) Settle(ctx context.Context, p auth.Principal, read SettlementRead) (invoice.Invoice, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesRelease); err != nil {
		return invoice.Invoice{}, err
	}
	if read.tenantID != p.TenantID {
		return invoice.Invoice{}, core.E(core.CodeInternal, "invoices: a settlement read for another tenant")
	}
	var out invoice.Invoice
	var refused error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		refused = nil
		inv, err := s.lockCallerInvoice(ctx, tx, p, read.invoiceID)
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		if _, err := invoice.CheckSettlement(inv, read.kind, read.balance, inv.Now(now)); err != nil {
			return err
		}
		pay, err := read.payment(ctx, kernel.Acting(p, auth.ScopePaymentsCreate))
		if kernel.IsCommitted(err) {
			// The two-factor challenge outlives the refusal; nothing is linked yet.
			refused = err
			return nil
		}
		if err != nil {
			return err
		}
		out = inv.Link(read.kind, pay.ID, now)
		return saveInvoice(ctx, tx, out, false)
	})
	if err == nil && refused != nil {
		return invoice.Invoice{}, refused
	}
	return out, err
}

// settlementRequest is the Safe payment of a settlement: USDC from the hold Safe to the payee
// (release) or the payer (refund).
func settlementRequest(inv invoice.Invoice, kind invoice.Settlement, amount int64) safepay.Request {
	to := inv.PayeeAddress
	if kind == invoice.Refund {
		to = inv.PayerAddress
	}
	chain := inv.ChainID
	return safepay.Request{SourceWalletID: inv.HoldWalletID,
		Destination: &safepay.DestinationInput{Type: "address", Address: to, ChainID: &chain},
		AmountValue: core.FormatUSD(amount), AmountAsset: "usdc", Memo: "invoice " + inv.ID + " " + string(kind)}
}

// ArbiterSign signs the invoice's pending settlement payment with the platform arbiter's key,
// for an operator (docs/decisions/invoices.md). The arbiter signs only invoices whose arbiter it is.
func (s *Service) ArbiterSign(ctx context.Context, operator, id string) (invoice.Invoice, error) {
	if s.arbiterKey == nil {
		return invoice.Invoice{}, core.E(core.CodeServiceUnavailable, "no platform arbiter is configured (INVOICE_ARBITER_KEY)")
	}
	var inv invoice.Invoice
	var pay safepay.Payment
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		if inv, err = tx.Invoices().FindPublicInvoice(ctx, strings.TrimSpace(id)); err != nil {
			return err
		}
		if inv.SettlementPaymentID() == "" || inv.Status.Terminal() {
			return core.E(core.CodeInvalidState, "invoice %s has no settlement payment waiting for signatures", inv.ID).
				WithDetails(map[string]any{"status": string(inv.Status)})
		}
		pay, err = tx.Payments().FindPayment(ctx, inv.TenantID, inv.Environment, inv.SettlementPaymentID())
		return err
	})
	if err != nil {
		return invoice.Invoice{}, err
	}
	if !strings.EqualFold(inv.ArbiterAddress, s.arbiter) {
		return invoice.Invoice{}, core.E(core.CodeInvalidState, "invoice %s has its own arbiter %s, not the platform's", inv.ID, inv.ArbiterAddress)
	}
	sig, err := safe.Sign(common.HexToHash(pay.SafeTxHash), s.arbiterKey)
	if err != nil {
		return invoice.Invoice{}, err
	}
	p := kernel.System(inv.TenantID, inv.Environment, auth.ScopePaymentsCreate)
	read, err := s.payments.ReadSignature(ctx, p, pay.ID, sig.Hex())
	if err != nil {
		return invoice.Invoice{}, err
	}
	if _, err := read(ctx, p); err != nil {
		return invoice.Invoice{}, err
	}
	s.log.Info("invoices: the platform arbiter signed", "invoiceId", inv.ID, "paymentId", pay.ID, "operator", operator)
	return inv, nil
}

func utc(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	u := t.UTC()
	return &u
}
