package citus

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// TestCitus_OfframpUnitsRouteToOneShard: the unit-of-work statements of the off-ramp family
// (a payment, its quotes, return, recheck and review approval, kept with the SENDER's rows)
// and of payout destinations (the recipient's) each go to one shard, including the lookups
// made before the tenant is known: a payment by id (jobs, the recipient's read) and by its
// provider's reference (webhooks), a claim by id and by escrow id, a claim link by its token
// hash (the public claim page). Run on connections that refuse a multi-shard statement, every
// one succeeds. The passes over every tenant (due claims, expired quotes, held payments, a
// reorg's escrow log, the challenge budgets) then run on an ordinary connection.
func TestCitus_OfframpUnitsRouteToOneShard(t *testing.T) {
	ctx := context.Background()
	store := singleShardStore(t)
	sender, rcpt := env().NewTenant(t), env().NewTenant(t)
	now := time.Now().UTC().Truncate(time.Microsecond)
	var p offramp.Payment
	var c claim.Claim
	for _, step := range []struct {
		name string
		fn   func(ctx context.Context, tx ports.Tx) error
	}{
		{"payments", func(ctx context.Context, tx ports.Tx) (err error) {
			p, err = offrampUnit(ctx, tx, sender.ID, rcpt.ID, now)
			return err
		}},
		{"payment reads and locks", func(ctx context.Context, tx ports.Tx) error { return offrampLocksUnit(ctx, tx, p) }},
		{"claims", func(ctx context.Context, tx ports.Tx) (err error) {
			c, err = claimsUnit(ctx, tx, p, now)
			return err
		}},
	} {
		if err := store.InTx(ctx, step.fn); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
	}
	err := env().Service.Store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { return offrampPassesUnit(ctx, tx, p, c, now) })
	if err != nil {
		t.Fatalf("passes over every tenant: %v", err)
	}
}

func offrampUnit(ctx context.Context, tx ports.Tx, sender, rcpt string, now time.Time) (offramp.Payment, error) {
	d := recipient.Destination{ID: core.NewID(core.PrefixDest), TenantID: rcpt, Environment: core.EnvTest, Type: recipient.DestOnchainWallet,
		Status: recipient.DestActive, Masked: "0x…01", IdentifierCiphertext: []byte("sealed"), CreatedAt: now}
	r := tx.Recipients()
	if err := r.CreateDestination(ctx, d); err != nil {
		return offramp.Payment{}, err
	}
	if _, err := r.FindDestination(ctx, rcpt, core.EnvTest, d.ID); err != nil {
		return offramp.Payment{}, err
	}
	if _, _, err := r.ListDestinations(ctx, rcpt, core.EnvTest, ports.Page{Take: 10}); err != nil {
		return offramp.Payment{}, err
	}
	if err := r.SetDestinationStatus(ctx, rcpt, core.EnvTest, d.ID, recipient.DestActive); err != nil {
		return offramp.Payment{}, err
	}
	p := offramp.Payment{ID: core.NewID(core.PrefixOffRamp), Environment: core.EnvTest, SenderTenantID: sender, RecipientTenantID: rcpt,
		RecipientPhoneHash: "route-" + routeAddress(), RecipientPhoneMasked: "+1•••0101", SourceChainKey: "base-sepolia",
		SourceAssetID: "usdc", SourceAmountBaseUnits: 100, FundingMode: "INTERNAL_BALANCE", SpeedPreference: offramp.SpeedFastest,
		Status: offramp.StatusAwaitingRecipientConfirmation, QuoteSetVersion: 1, CreatedAt: now, UpdatedAt: now}
	o := tx.Offramp()
	if err := o.CreatePayment(ctx, p); err != nil {
		return p, err
	}
	q := offramp.Quote{ID: core.NewID(core.PrefixRouteQuote), PaymentID: p.ID, SetVersion: 1, DestinationID: d.ID,
		DestinationType: d.Type, Provider: "mock", SourceAmountBaseUnits: 100, SourceAssetID: "usdc", DestinationAmountMinor: 99,
		DestinationCurrency: "USD", ExchangeRate: "1", Status: offramp.QuoteActive, ExpiresAt: now.Add(time.Hour), CreatedAt: now,
		DeliverBaseUnits: 99, FeeBaseUnits: 1}
	if err := o.InsertQuotes(ctx, sender, []offramp.Quote{q}); err != nil {
		return p, err
	}
	if qs, err := o.ActiveQuotes(ctx, sender, p.ID); err != nil || len(qs) != 1 {
		return p, errors.Join(err, fmt.Errorf("ActiveQuotes = %d quotes, want 1", len(qs)))
	}
	if _, err := o.FindQuote(ctx, sender, p.ID, q.ID); err != nil {
		return p, err
	}
	if _, err := o.SenderSpend(ctx, core.EnvTest, sender, p.ID, policy.WindowsAt(now)); err != nil {
		return p, err
	}
	return p, errors.Join(o.ApproveReview(ctx, sender, p.ID, "op", []offramp.HoldReason{offramp.HoldCredentialExpired}, now),
		o.BackOffHoldRecheck(ctx, sender, p.ID, now, time.Minute, time.Hour))
}

// offrampLocksUnit reads and locks the payment as jobs, webhooks and its recipient do.
func offrampLocksUnit(ctx context.Context, tx ports.Tx, p offramp.Payment) error {
	o := tx.Offramp()
	for _, tenant := range []string{p.SenderTenantID, p.RecipientTenantID} {
		if _, err := o.FindPayment(ctx, core.EnvTest, tenant, p.ID); err != nil {
			return fmt.Errorf("FindPayment by %s: %w", tenant, err)
		}
	}
	locked, err := o.LockPayment(ctx, p.ID)
	if err != nil {
		return err
	}
	// A terminal status with a provider reference: the package's shared database keeps the
	// payment, and corridor check (run by later tests) asks a submitted one for its transfers.
	locked.Status, locked.Provider, locked.ProviderReference = offramp.StatusCanceled, "mock", "route-"+routeAddress()
	if err := o.UpdatePayment(ctx, locked); err != nil {
		return err
	}
	if got, err := o.LockPaymentByProviderReference(ctx, "mock", locked.ProviderReference); err != nil || got.ID != p.ID {
		return errors.Join(err, fmt.Errorf("LockPaymentByProviderReference found %q", got.ID))
	}
	if _, err := o.ApprovedReviewReasons(ctx, p.SenderTenantID, p.ID); err != nil {
		return err
	}
	if _, err := o.RecordReturn(ctx, p.SenderTenantID, p.ID, "trf_route", 99, time.Now()); err != nil {
		return err
	}
	return errors.Join(o.SupersedeQuotes(ctx, p.SenderTenantID, p.ID, offramp.QuoteSuperseded),
		o.ClearHoldRecheck(ctx, p.SenderTenantID, p.ID))
}

// claimsUnit is one claim's life: created, found by escrow id and id, linked, redeemed through
// its link and challenge, and its escrow log recorded.
func claimsUnit(ctx context.Context, tx ports.Tx, p offramp.Payment, now time.Time) (claim.Claim, error) {
	r := tx.Claims()
	c := claim.New(core.EnvTest, p.ID, p.SenderTenantID, 100, 84532, "base-sepolia", "usdc", p.RecipientPhoneHash,
		p.RecipientPhoneMasked, []byte("sealed"), time.Hour, now)
	if err := r.CreateClaim(ctx, c); err != nil {
		return c, err
	}
	if _, err := r.FindClaimForSender(ctx, core.EnvTest, p.SenderTenantID, c.ID); err != nil {
		return c, err
	}
	if _, err := r.LockClaimByOnchainID(ctx, core.EnvTest, c.ChainID, c.OnchainID); err != nil {
		return c, err
	}
	locked, err := r.LockClaim(ctx, c.ID)
	if err != nil {
		return c, err
	}
	locked.ResendCount = 1
	if err := r.UpdateClaim(ctx, locked); err != nil {
		return c, err
	}
	_, hash := claim.NewToken()
	l := claim.Link{TenantID: p.SenderTenantID, TokenHash: hash, ClaimID: c.ID, Environment: core.EnvTest, ExpiresAt: now.Add(time.Hour), CreatedAt: now}
	if err := errors.Join(r.SupersedeLinks(ctx, p.SenderTenantID, c.ID, now), r.CreateLink(ctx, l)); err != nil {
		return c, err
	}
	link, err := r.LockLinkByTokenHash(ctx, hash)
	if err != nil {
		return c, err
	}
	link.UsedAt = &now
	ch := claim.Challenge{TenantID: p.SenderTenantID, ID: core.NewID(claim.PrefixChallenge), ClaimID: c.ID, Environment: core.EnvTest,
		CodeHash: "code", PhoneHash: c.PhoneHash, IPHash: "ip-" + routeAddress(), Status: claim.ChallengePending, AttemptsRemaining: 5,
		ExpiresAt: now.Add(10 * time.Minute), CreatedAt: now, UpdatedAt: now}
	if err := errors.Join(r.UpdateLink(ctx, link), r.CreateChallenge(ctx, ch)); err != nil {
		return c, err
	}
	got, err := r.LockChallenge(ctx, p.SenderTenantID, c.ID, ch.ID)
	if err != nil {
		return c, err
	}
	if err := r.UpdateChallenge(ctx, got); err != nil {
		return c, err
	}
	_, err = r.RecordEscrowEvent(ctx, p.SenderTenantID, c.ChainID, "0xroute"+c.ID, 0, c.ID, claim.EventFunded, now)
	return c, err
}

// offrampPassesUnit runs the reads and deletes that ask every shard, and checks they find the
// tenant's rows.
func offrampPassesUnit(ctx context.Context, tx ports.Tx, p offramp.Payment, c claim.Claim, now time.Time) error {
	o, r := tx.Offramp(), tx.Claims()
	if list, _, err := o.ListPayments(ctx, ports.OfframpFilter{Environment: core.EnvTest, TenantID: p.RecipientTenantID}, ports.Page{Take: 10}); err != nil || len(list) != 1 {
		return errors.Join(err, fmt.Errorf("the recipient's list = %d payments, want 1", len(list)))
	}
	if _, err := o.HeldPaymentIDs(ctx, core.EnvTest, p.RecipientTenantID, 10); err != nil {
		return err
	}
	if _, err := o.ExpiredQuotePaymentIDs(ctx, now, 10); err != nil {
		return err
	}
	if _, err := o.RecheckDueHeldPaymentIDs(ctx, now, []offramp.HoldReason{offramp.HoldCredentialExpired}, 10); err != nil {
		return err
	}
	if err := o.ResetHoldRechecks(ctx, offramp.HoldCredentialExpired); err != nil {
		return err
	}
	if _, err := r.DueClaimIDs(ctx, now.Add(2*time.Hour), time.Minute, 10); err != nil {
		return err
	}
	if n, err := r.CountChallengesSince(ctx, c.PhoneHash, "", now.Add(-time.Minute)); err != nil || n != 1 {
		return errors.Join(err, fmt.Errorf("CountChallengesSince = %d, want 1", n))
	}
	id, _, found, err := r.DeleteEscrowEvent(ctx, c.ChainID, "0xroute"+c.ID, 0)
	if err != nil || !found || id != c.ID {
		return errors.Join(err, fmt.Errorf("DeleteEscrowEvent = %q, %v; want the claim's log", id, found))
	}
	return nil
}
