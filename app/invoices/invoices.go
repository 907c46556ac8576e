package invoices

import (
	"context"
	"fmt"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// Create validates and stores a DRAFT invoice. The arbiter defaults to the platform's.
func (s *Service) Create(ctx context.Context, p auth.Principal, in invoice.DraftInput) (invoice.Invoice, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesWrite); err != nil {
		return invoice.Invoice{}, err
	}
	now := s.clock.Now().UTC()
	if strings.TrimSpace(in.ArbiterAddress) == "" && s.arbiter == "" {
		return invoice.Invoice{}, core.Invalid("arbiterAddress", "is required: no platform arbiter is configured")
	}
	d, err := invoice.ValidateDraft(p.Environment, in, s.arbiter, now)
	if err != nil {
		return invoice.Invoice{}, err
	}
	inv := invoice.Invoice{ID: core.NewID(invoice.PrefixInvoice), TenantID: p.TenantID, Environment: p.Environment,
		PayeeName: d.PayeeName, Description: d.Description, AmountBaseUnits: d.AmountBaseUnits, PayerAddress: d.PayerAddress,
		PayeeAddress: d.PayeeAddress, ArbiterAddress: d.ArbiterAddrs, ChainID: d.ChainID, Status: invoice.StatusDraft,
		ExpiresAt: utc(d.ExpiresAt), CreatedAt: now, UpdatedAt: now}
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		return saveInvoice(ctx, tx, inv, true)
	})
	return inv, err
}

// Get is one of the caller's invoices.
func (s *Service) Get(ctx context.Context, p auth.Principal, id string) (invoice.Invoice, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesRead); err != nil {
		return invoice.Invoice{}, err
	}
	return s.find(ctx, p, id)
}

// List is the caller's invoices, newest first.
func (s *Service) List(ctx context.Context, p auth.Principal, page ports.Page) ([]invoice.Invoice, int, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesRead); err != nil {
		return nil, 0, err
	}
	var out []invoice.Invoice
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, total, err = tx.Invoices().ListInvoices(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// Public is the public view of any invoice: the caller sees only amountUsd, status,
// holdAddress and chainId (the HTTP layer shows nothing else).
func (s *Service) Public(ctx context.Context, id string) (invoice.Invoice, error) {
	var inv invoice.Invoice
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		inv, err = tx.Invoices().FindPublicInvoice(ctx, strings.TrimSpace(id))
		return err
	})
	return inv, err
}

// Send moves a DRAFT invoice to SENT and provisions its hold Safe, a 2-of-3 of payer, payee
// and arbiter, in the same unit of work: its CREATE2 address is final at once (funds sent
// before deployment are safe) and the wallets capability's job deploys it.
func (s *Service) Send(ctx context.Context, p auth.Principal, id string) (invoice.Invoice, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesWrite); err != nil {
		return invoice.Invoice{}, err
	}
	var out invoice.Invoice
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		inv, err := s.lockCallerInvoice(ctx, tx, p, id)
		if err != nil {
			return err
		}
		next, err := inv.Apply(invoice.TriggerSend, s.clock.Now().UTC())
		if err != nil {
			return err
		}
		w, err := s.wallets.CreateHoldWallet(ctx, kernel.Acting(p, auth.ScopeWalletsWrite), holdWallet(inv))
		if err != nil {
			return err
		}
		next.HoldWalletID, next.HoldAddress = w.ID, w.Address
		out = next
		return saveInvoice(ctx, tx, next, false)
	})
	return out, err
}

func holdWallet(inv invoice.Invoice) HoldWallet {
	label := func(s string) *string { return &s }
	return HoldWallet{Name: "Invoice " + inv.ID + " hold", Threshold: holdThreshold, ChainID: inv.ChainID, Owners: []wallet.OwnerInput{
		{Address: inv.PayerAddress, Role: string(wallet.RoleFinanceOwner), Label: label("payer")},
		{Address: inv.PayeeAddress, Role: string(wallet.RoleFinanceOwner), Label: label("payee")},
		{Address: inv.ArbiterAddress, Role: string(wallet.RoleAdminOwner), Label: label("arbiter")},
	}}
}

// Deliver marks a FUNDED invoice DELIVERED, with optional evidence.
func (s *Service) Deliver(ctx context.Context, p auth.Principal, id, evidence string) (invoice.Invoice, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesWrite); err != nil {
		return invoice.Invoice{}, err
	}
	evidence = strings.TrimSpace(evidence)
	if len(evidence) > invoice.MaxEvidenceBytes {
		return invoice.Invoice{}, core.Invalid("evidence", "must be at most 4000 bytes")
	}
	var out invoice.Invoice
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		inv, err := s.lockCallerInvoice(ctx, tx, p, id)
		if err != nil {
			return err
		}
		if out, err = inv.Apply(invoice.TriggerDeliver, s.clock.Now().UTC()); err != nil {
			return err
		}
		out.Evidence = evidence
		return saveInvoice(ctx, tx, out, false)
	})
	return out, err
}

// CancelRead is a cancel with the hold Safe's balance read before its unit of work.
type CancelRead struct {
	tenantID, invoiceID string
	balance             int64
}

// ReadCancel reads the hold Safe's balance for a cancel (outside any unit of work): funds that
// arrived before the poller saw them still forbid the cancel.
func (s *Service) ReadCancel(ctx context.Context, p auth.Principal, id string) (CancelRead, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesWrite); err != nil {
		return CancelRead{}, err
	}
	inv, err := s.find(ctx, p, id)
	if err != nil {
		return CancelRead{}, err
	}
	if err := invoice.CheckCancel(inv, 0); err != nil {
		return CancelRead{}, err
	}
	var balance int64
	if inv.HoldAddress != "" {
		if balance, err = s.holdBalance(ctx, inv); err != nil {
			return CancelRead{}, err
		}
	}
	return CancelRead{tenantID: p.TenantID, invoiceID: inv.ID, balance: balance}, nil
}

// Cancel cancels a DRAFT or SENT invoice whose Safe holds nothing.
func (s *Service) Cancel(ctx context.Context, p auth.Principal, read CancelRead) (invoice.Invoice, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeInvoicesWrite); err != nil {
		return invoice.Invoice{}, err
	}
	if read.tenantID != p.TenantID {
		return invoice.Invoice{}, core.E(core.CodeInternal, "invoices: a cancel read for another tenant")
	}
	var out invoice.Invoice
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		inv, err := s.lockCallerInvoice(ctx, tx, p, read.invoiceID)
		if err != nil {
			return err
		}
		if err := invoice.CheckCancel(inv, read.balance); err != nil {
			return err
		}
		if out, err = inv.Apply(invoice.TriggerCancel, s.clock.Now().UTC()); err != nil {
			return err
		}
		return saveInvoice(ctx, tx, out, false)
	})
	return out, err
}

func (s *Service) find(ctx context.Context, p auth.Principal, id string) (invoice.Invoice, error) {
	var inv invoice.Invoice
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		inv, err = tx.Invoices().FindInvoice(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		return err
	})
	return inv, err
}

// lockCallerInvoice finds the caller's invoice (404 for another tenant's) and locks it.
func (s *Service) lockCallerInvoice(ctx context.Context, tx txView, p auth.Principal, id string) (invoice.Invoice, error) {
	inv, err := tx.Invoices().FindInvoice(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
	if err != nil {
		return invoice.Invoice{}, err
	}
	return tx.Invoices().LockInvoice(ctx, inv.TenantID, inv.ID)
}

// holdBalance reads the hold Safe's USDC balance (outside any unit of work). An unreadable
// balance is an error (CHAIN_UNAVAILABLE), never zero.
func (s *Service) holdBalance(ctx context.Context, inv invoice.Invoice) (int64, error) {
	chain, err := s.chains.Chain(inv.Environment)
	if err != nil {
		return 0, err
	}
	rctx, cancel := context.WithTimeout(ctx, balanceReadTimeout)
	defer cancel()
	bal, err := chain.USDCBalance(rctx, common.HexToAddress(inv.HoldAddress))
	if err != nil {
		return 0, core.E(core.CodeChainUnavailable, "reading the hold Safe's balance: %v", err).Transient(core.RetryDependency)
	}
	return balanceOf(bal)
}

func balanceOf(bal *big.Int) (int64, error) {
	if bal == nil || bal.Sign() < 0 || !bal.IsInt64() {
		return 0, fmt.Errorf("invoices: a USDC balance out of range: %v", bal)
	}
	return bal.Int64(), nil
}
