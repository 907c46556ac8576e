package citus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// TestCitus_InvoiceAndCheckoutUnitsRouteToOneShard: the unit-of-work statements of invoices,
// bills, checkouts and their refunds each go to one shard, including the lookups made before
// the tenant is known (a public invoice or checkout page by id, a signer's nonce claimed by a
// verified bill): run on connections that refuse a multi-shard statement, every one succeeds.
func TestCitus_InvoiceAndCheckoutUnitsRouteToOneShard(t *testing.T) {
	ctx := context.Background()
	store := singleShardStore(t)
	ten, payer := env().NewTenant(t), env().NewTenant(t)
	now := time.Now().UTC().Truncate(time.Microsecond)
	for name, fn := range map[string]func(ctx context.Context, tx ports.Tx) error{
		"checkouts and refunds": func(ctx context.Context, tx ports.Tx) error { return checkoutsUnit(ctx, tx, ten.ID, now) },
		"invoices":              func(ctx context.Context, tx ports.Tx) error { return invoicesUnit(ctx, tx, ten.ID, now) },
		"bills":                 func(ctx context.Context, tx ports.Tx) error { return billsUnit(ctx, tx, ten.ID, payer.ID, now) },
	} {
		if err := store.InTx(ctx, fn); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
}

func routeAddress() string {
	b := make([]byte, 20)
	_, _ = rand.Read(b)
	return "0x" + hex.EncodeToString(b)
}

func checkoutsUnit(ctx context.Context, tx ports.Tx, tenant string, now time.Time) error {
	r := tx.Checkouts()
	c := checkout.Checkout{ID: core.NewID(checkout.PrefixCheckout), TenantID: tenant, Environment: core.EnvTest, ChainID: 84532,
		Amount: 500, Currency: "USD", Cryptocurrency: "USDC", DepositAddress: routeAddress(), StartBlock: 7,
		Status: checkout.StatusCreated, ExpiresAt: now.Add(time.Hour), WatchUntil: now.Add(2 * time.Hour), CreatedAt: now, UpdatedAt: now}
	if err := r.CreateCheckout(ctx, c); err != nil {
		return err
	}
	if _, err := r.FindPublicCheckout(ctx, c.ID); err != nil {
		return err
	}
	if _, err := r.FindCheckout(ctx, tenant, core.EnvTest, c.ID); err != nil {
		return err
	}
	locked, err := r.LockCheckout(ctx, tenant, c.ID)
	if err != nil {
		return err
	}
	locked.Status, locked.Received, locked.Credited, locked.CompletedAt = checkout.StatusCompleted, 500, 500, &now
	if err := r.UpdateCheckout(ctx, locked); err != nil {
		return err
	}
	if _, _, err := r.ListCheckouts(ctx, ports.CheckoutQuery{TenantID: tenant, Environment: core.EnvTest}, ports.Page{Take: 10}); err != nil {
		return err
	}
	x := checkout.Refund{ID: core.NewID(checkout.PrefixRefund), CheckoutID: c.ID, TenantID: tenant, Environment: core.EnvTest,
		Amount: 100, Destination: routeAddress(), Status: checkout.RefundPending, CreatedAt: now, UpdatedAt: now}
	if err := r.CreateRefund(ctx, x); err != nil {
		return err
	}
	x.Status = checkout.RefundProcessed
	if err := r.UpdateRefund(ctx, x); err != nil {
		return err
	}
	if _, err := r.ListRefunds(ctx, tenant, c.ID); err != nil {
		return err
	}
	_, err = r.RefundedInWindows(ctx, core.EnvTest, tenant, policy.WindowsAt(now))
	return err
}

func invoicesUnit(ctx context.Context, tx ports.Tx, tenant string, now time.Time) error {
	r := tx.Invoices()
	i := invoice.Invoice{ID: core.NewID(invoice.PrefixInvoice), TenantID: tenant, Environment: core.EnvTest, PayeeName: "Payee",
		AmountBaseUnits: 500, PayerAddress: routeAddress(), PayeeAddress: routeAddress(), ArbiterAddress: routeAddress(),
		ChainID: 84532, Status: invoice.StatusDraft, CreatedAt: now, UpdatedAt: now}
	if err := r.CreateInvoice(ctx, i); err != nil {
		return err
	}
	if _, err := r.FindPublicInvoice(ctx, i.ID); err != nil {
		return err
	}
	if _, err := r.FindInvoice(ctx, tenant, core.EnvTest, i.ID); err != nil {
		return err
	}
	locked, err := r.LockInvoice(ctx, tenant, i.ID)
	if err != nil {
		return err
	}
	locked.Evidence, locked.UpdatedAt = "routed", now
	if err := r.UpdateInvoice(ctx, locked); err != nil {
		return err
	}
	_, _, err = r.ListInvoices(ctx, tenant, core.EnvTest, ports.Page{Take: 10})
	return err
}

func billsUnit(ctx context.Context, tx ports.Tx, sender, payer string, now time.Time) error {
	r := tx.Invoices()
	b := invoice.Bill{ID: core.NewID(invoice.PrefixBill), Environment: core.EnvTest, SenderTenantID: sender, PayerTenantID: payer,
		AmountBaseUnits: 100, PayerAddress: routeAddress(), PayeeAddress: routeAddress(), ChainID: 84532, SenderAddress: routeAddress(),
		Signature: "0x01", SigNonce: "7", SigExpiresAt: now.Add(time.Hour), DocHash: "0x02", DomainChainID: 84532,
		DomainVerifyingContract: routeAddress(), VerificationStatus: invoice.Verified, CreatedAt: now}
	if err := r.CreateBill(ctx, b); err != nil {
		return err
	}
	if _, err := r.FindInboundBill(ctx, payer, core.EnvTest, b.ID); err != nil {
		return err
	}
	locked, err := r.LockBill(ctx, payer, b.ID)
	if err != nil {
		return err
	}
	locked.PayerDecision = invoice.DecisionAccepted
	if err := r.UpdateBill(ctx, locked); err != nil {
		return err
	}
	_, _, err = r.ListInboundBills(ctx, payer, core.EnvTest, "", ports.Page{Take: 10})
	return err
}
