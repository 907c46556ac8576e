package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// RecipientRepo is the contract of ports.RecipientRepo: aliases list newest first and are
// scoped (PHONE_ALIAS_NOT_FOUND elsewhere), a number has one VERIFIED alias per environment
// (PHONE_ALIAS_TAKEN for a second), the credential is put and found, destinations list oldest
// first and are scoped, and units that lock an alias budget to count and record never pass it.
func RecipientRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"aliases list newest first, scoped; one VERIFIED alias per number", recipientAliases},
		{"the credential is put and found; destinations list oldest first, scoped", recipientDestinations},
		{"units that lock an alias budget to count it never pass it", recipientBudgetConcurrent},
	})
}

func newAlias(tenantID, phoneHash string) recipient.Alias {
	at := ledgerNow()
	return recipient.Alias{ID: core.NewID("pha"), TenantID: tenantID, Environment: core.EnvTest, PhoneHash: phoneHash,
		PhoneCiphertext: []byte("sealed"), Masked: "+1•••0101", Status: recipient.AliasPending, CodeHash: "code",
		CodeExpiresAt: at.Add(10 * time.Minute), CreatedAt: at}
}

func recipientAliases(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	phone := "phone-" + suffix(t)
	a, b, rival := newAlias(tn.ID, phone), newAlias(tn.ID, "phone-"+suffix(t)), newAlias(other.ID, phone)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		for _, x := range []recipient.Alias{a, b, rival} {
			noErr(t, "CreateAlias", tx.Recipients().CreateAlias(ctx, x))
		}
		return nil
	})
	at := ledgerNow()
	a.Status, a.VerifiedAt, a.CodeHash = recipient.AliasVerified, &at, ""
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Recipients().UpdateAlias(ctx, a) })
	rival.Status, rival.VerifiedAt = recipient.AliasVerified, &at
	err := unitErr(s, func(ctx context.Context, tx ports.Tx) error { return tx.Recipients().UpdateAlias(ctx, rival) })
	wantCode(t, err, recipient.CodePhoneAliasTaken)
	// The same tenant's second alias of the number is refused too; the verified alias itself is
	// written again (a re-verification's code) without losing the number.
	twin := newAlias(tn.ID, phone)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Recipients().CreateAlias(ctx, twin) })
	twin.Status, twin.VerifiedAt = recipient.AliasVerified, &at
	err = unitErr(s, func(ctx context.Context, tx ports.Tx) error { return tx.Recipients().UpdateAlias(ctx, twin) })
	wantCode(t, err, recipient.CodePhoneAliasTaken)
	a.CodeHash = "reverify"
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Recipients().UpdateAlias(ctx, a) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, total, err := tx.Recipients().ListAliases(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListAliases", total, 3)
		wantIDs(t, "ListAliases", ids(list, func(x recipient.Alias) string { return x.ID }), []string{twin.ID, b.ID, a.ID})
		got, err2 := tx.Recipients().FindVerifiedAlias(ctx, core.EnvTest, phone)
		if got.ID != a.ID || got.VerifiedAt == nil {
			t.Errorf("FindVerifiedAlias = %+v", got)
		}
		_, err3 := tx.Recipients().FindVerifiedAlias(ctx, core.EnvLive, phone)
		wantCode(t, err3, recipient.CodePhoneAliasNotFound)
		_, err3 = tx.Recipients().LockAlias(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err3, recipient.CodePhoneAliasNotFound)
		n, err4 := tx.Recipients().CountPendingAliases(ctx, tn.ID, core.EnvTest, at)
		if n != 2 {
			t.Errorf("CountPendingAliases = %d, want 2", n)
		}
		if n, _ := tx.Recipients().CountPendingAliases(ctx, tn.ID, core.EnvTest, at.Add(time.Hour)); n != 0 {
			t.Errorf("CountPendingAliases after the codes expired = %d, want 0", n)
		}
		return firstErr(err, err2, err4)
	})
}

func newDestination(tenantID string, typ recipient.DestinationType) recipient.Destination {
	d := recipient.Destination{ID: core.NewID(core.PrefixDest), TenantID: tenantID, Environment: core.EnvTest, Type: typ,
		Status: recipient.DestActive, Masked: "masked", CreatedAt: ledgerNow()}
	if typ != recipient.DestServiceBalance {
		d.IdentifierCiphertext = []byte("sealed")
	}
	return d
}

func recipientDestinations(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	cred := recipient.Credential{TenantID: tn.ID, Environment: core.EnvTest, Type: recipient.CredentialBusinessIdentity,
		Status: recipient.CredentialActive, UpdatedAt: ledgerNow()}
	a, b := newDestination(tn.ID, recipient.DestOnchainWallet), newDestination(tn.ID, recipient.DestServiceBalance)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		if _, ok, err := tx.Recipients().FindCredential(ctx, tn.ID, core.EnvTest); ok || err != nil {
			t.Errorf("FindCredential before any = %v, %v", ok, err)
		}
		noErr(t, "PutCredential", tx.Recipients().PutCredential(ctx, cred))
		cred.Status = recipient.CredentialSuspended
		noErr(t, "PutCredential again", tx.Recipients().PutCredential(ctx, cred))
		noErr(t, "CreateDestination", tx.Recipients().CreateDestination(ctx, a))
		return tx.Recipients().CreateDestination(ctx, b)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, ok, err := tx.Recipients().FindCredential(ctx, tn.ID, core.EnvTest)
		if !ok || got.Status != recipient.CredentialSuspended {
			t.Errorf("FindCredential = %+v, %v; want the second put", got, ok)
		}
		list, total, err2 := tx.Recipients().ListDestinations(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListDestinations", total, 2)
		wantIDs(t, "ListDestinations", ids(list, func(d recipient.Destination) string { return d.ID }), []string{a.ID, b.ID})
		wantCode(t, tx.Recipients().SetDestinationStatus(ctx, other.ID, core.EnvTest, a.ID, recipient.DestDisabled), recipient.CodeDestinationNotFound)
		noErr(t, "SetDestinationStatus", tx.Recipients().SetDestinationStatus(ctx, tn.ID, core.EnvTest, a.ID, recipient.DestDisabled))
		d, err3 := tx.Recipients().FindDestination(ctx, tn.ID, core.EnvTest, a.ID)
		if d.Status != recipient.DestDisabled || string(d.IdentifierCiphertext) != "sealed" {
			t.Errorf("FindDestination = %+v", d)
		}
		_, err4 := tx.Recipients().FindDestination(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err4, recipient.CodeDestinationNotFound)
		return firstErr(err, err2, err3)
	})
}

func recipientBudgetConcurrent(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	scope := ports.AliasAttemptScope{Environment: core.EnvTest, PhoneHash: "phone-" + suffix(t)}
	since := ledgerNow().Add(-time.Minute)
	for _, err := range concurrently(s, 5, func(ctx context.Context, tx ports.Tx, _ int) error {
		if err := tx.Recipients().LockAliasBudgets(ctx, scope); err != nil {
			return err
		}
		n, _, err := tx.Recipients().CountAliasAttempts(ctx, scope, since)
		if err != nil || n >= 3 {
			return err
		}
		return tx.Recipients().RecordAliasAttempt(ctx, ports.AliasAttempt{Environment: core.EnvTest, Kind: ports.AliasCodeSent,
			PhoneHash: scope.PhoneHash, TenantID: tn.ID, IPHash: "ip", At: ledgerNow()})
	}) {
		noErr(t, "budget unit", err)
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		n, oldest, err := tx.Recipients().CountAliasAttempts(ctx, scope, since)
		if n != 3 || oldest.Before(since) {
			t.Errorf("CountAliasAttempts = %d (oldest %v), want 3 under a budget of 3", n, oldest)
		}
		return err
	})
}
