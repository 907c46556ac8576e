package citus

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/cipher"
	"github.com/corridorhq/corridor/adapters/sms"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/recipient"
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

// TestCitus_PhoneAliasAndSMSUnitsRouteToOneShard: a phone alias verified and found by its phone
// before the tenant is known (its lookup row, then the tenant's shard), and a sandbox text sent
// and listed, each statement on one shard; the outbox purge, a pass over every shard, deletes
// the old texts of two tenants by key.
func TestCitus_PhoneAliasAndSMSUnitsRouteToOneShard(t *testing.T) {
	ctx := context.Background()
	store := singleShardStore(t)
	ten, other := env().NewTenant(t), env().NewTenant(t)
	now := time.Now().UTC().Truncate(time.Microsecond)
	if err := store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return aliasesUnit(ctx, tx, ten.ID, now) }); err != nil {
		t.Fatalf("phone aliases: %v", err)
	}
	c, err := cipher.New([]byte("routing-test-secret-of-32-bytes!"))
	if err != nil {
		t.Fatal(err)
	}
	outbox := sms.NewSandbox(store.DB(), c)
	for _, tenant := range []string{ten.ID, other.ID} {
		m := ports.SMSMessage{IdempotencyKey: "route:" + tenant, TenantID: tenant, Environment: core.EnvTest, ToHash: "h",
			ToMasked: "+1•••0101", ToCiphertext: []byte("x"), Body: "code 123456", Purpose: "route"}
		if err := outbox.Send(ctx, m, now.Add(-time.Hour)); err != nil {
			t.Fatalf("send: %v", err)
		}
		if err := outbox.Send(ctx, m, now.Add(-time.Hour)); err != nil {
			t.Fatalf("send again: %v", err)
		}
		if list, total, err := outbox.ListSMS(ctx, tenant, core.EnvTest, ports.Page{Take: 10}); err != nil || total != 1 || len(list) != 1 {
			t.Fatalf("ListSMS = %d of %d, %v; want the one text", len(list), total, err)
		}
	}
	purger := sms.NewSandbox(env().Service.Store.DB(), c)
	if n, err := purger.PurgeSMS(ctx, now.Add(-30*time.Minute), 1000); err != nil || n < 2 {
		t.Fatalf("PurgeSMS = %d, %v; want the two tenants' texts", n, err)
	}
}

func aliasesUnit(ctx context.Context, tx ports.Tx, tenant string, now time.Time) error {
	r := tx.Recipients()
	a := recipient.Alias{ID: core.NewID("pha"), TenantID: tenant, Environment: core.EnvTest, PhoneHash: "route-" + routeAddress(),
		PhoneCiphertext: []byte("sealed"), Masked: "+1•••0101", Status: recipient.AliasPending, CodeHash: "code",
		CodeExpiresAt: now.Add(10 * time.Minute), CreatedAt: now}
	if err := r.CreateAlias(ctx, a); err != nil {
		return err
	}
	locked, err := r.LockAlias(ctx, tenant, core.EnvTest, a.ID)
	if err != nil {
		return err
	}
	locked.Status, locked.VerifiedAt, locked.CodeHash = recipient.AliasVerified, &now, ""
	if err := r.UpdateAlias(ctx, locked); err != nil {
		return err
	}
	if got, err := r.FindVerifiedAlias(ctx, core.EnvTest, a.PhoneHash); err != nil || got.ID != a.ID {
		return errors.Join(err, fmt.Errorf("FindVerifiedAlias found %q, want %s", got.ID, a.ID))
	}
	if _, _, err := r.ListAliases(ctx, tenant, core.EnvTest, ports.Page{Take: 10}); err != nil {
		return err
	}
	_, err = r.CountPendingAliases(ctx, tenant, core.EnvTest, now)
	return err
}
