package portstest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/ports"
)

// TwoFactorRepo is the contract of ports.TwoFactorRepo: a contact address is saved once
// (CONTACT_EXISTS, any case), contacts list newest first and delete once; factors list oldest
// first, are scoped (TWOFA_FACTOR_NOT_FOUND), and a TOTP step is used once even by units that
// race with one code; settings default to nothing protected; and a failure budget loses no
// failure when units lock it and add at once.
func TwoFactorRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"a contact is saved once, listed newest first, deleted once", twofactorContacts},
		{"factors list oldest first, scoped; racing units use a step once", twofactorFactors},
		{"settings default to none; a budget loses no failure to racing units", twofactorBudget},
		{"challenges are scoped, updated and counted; factors update and delete", twofactorChallenges},
	})
}

func twofactorContacts(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	at := ledgerNow()
	contact := func(address string, at time.Time) twofactor.Contact {
		return twofactor.Contact{ID: core.NewID(core.PrefixContact), TenantID: tn.ID, Environment: core.EnvTest, Address: address,
			Label: "payee", ChainID: 84532, CreatedAt: at}
	}
	a, b := contact(randomAddress(), at.Add(-time.Second)), contact(randomAddress(), at)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateContact", tx.TwoFactor().CreateContact(ctx, a))
		return tx.TwoFactor().CreateContact(ctx, b)
	})
	err := unitErr(s, func(ctx context.Context, tx ports.Tx) error {
		return tx.TwoFactor().CreateContact(ctx, contact("0x"+strings.ToUpper(a.Address[2:]), at))
	})
	wantCode(t, err, twofactor.CodeContactExists)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, total, err := tx.TwoFactor().ListContacts(ctx, tn.ID, core.EnvTest, ports.Page{Take: 10})
		wantTotal(t, "ListContacts", total, 2)
		wantIDs(t, "ListContacts", ids(list, func(c twofactor.Contact) string { return c.ID }), []string{b.ID, a.ID})
		got, found, err2 := tx.TwoFactor().FindContactByAddress(ctx, tn.ID, core.EnvTest, "0x"+strings.ToUpper(a.Address[2:]))
		if !found || got.ID != a.ID {
			t.Errorf("FindContactByAddress in upper case = %+v, %v", got, found)
		}
		deleted, err3 := tx.TwoFactor().DeleteContact(ctx, tn.ID, core.EnvTest, a.ID)
		if deleted.ID != a.ID {
			t.Errorf("DeleteContact = %+v", deleted)
		}
		_, err4 := tx.TwoFactor().DeleteContact(ctx, tn.ID, core.EnvTest, a.ID)
		wantCode(t, err4, twofactor.CodeContactNotFound)
		return firstErr(err, err2, err3)
	})
}

func newFactor(tenantID string, status twofactor.FactorStatus, at time.Time) twofactor.Factor {
	return twofactor.Factor{ID: core.NewID(core.PrefixFactor), TenantID: tenantID, Environment: core.EnvTest, Type: twofactor.FactorTOTP,
		Label: "phone", Status: status, SecretCiphertext: []byte("sealed"), CreatedAt: at}
}

func twofactorFactors(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	at := ledgerNow()
	active, cancelled := newFactor(tn.ID, twofactor.FactorActive, at.Add(-time.Second)), newFactor(tn.ID, twofactor.FactorCancelled, at)
	active.VerifiedAt, cancelled.Attempts = &at, twofactor.MaxAttempts
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateFactor", tx.TwoFactor().CreateFactor(ctx, active))
		return tx.TwoFactor().CreateFactor(ctx, cancelled)
	})
	used := make([]bool, 4)
	for _, err := range concurrently(s, len(used), func(ctx context.Context, tx ports.Tx, i int) (err error) {
		used[i], err = tx.TwoFactor().UseFactorStep(ctx, tn.ID, active.ID, 1000)
		return err
	}) {
		noErr(t, "UseFactorStep", err)
	}
	if n := countTrue(used); n != 1 {
		t.Errorf("%d of 4 racing units used one step, want 1", n)
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		list, err := tx.TwoFactor().ListFactors(ctx, tn.ID, core.EnvTest)
		wantIDs(t, "ListFactors", ids(list, func(f twofactor.Factor) string { return f.ID }), []string{active.ID, cancelled.ID})
		if older, _ := tx.TwoFactor().UseFactorStep(ctx, tn.ID, active.ID, 999); older {
			t.Error("an earlier step was accepted after a later one")
		}
		_, err2 := tx.TwoFactor().LockFactor(ctx, other.ID, core.EnvTest, active.ID)
		wantCode(t, err2, twofactor.CodeFactorNotFound)
		noErr(t, "DeleteCancelledFactors", tx.TwoFactor().DeleteCancelledFactors(ctx, tn.ID, core.EnvTest))
		list, err3 := tx.TwoFactor().ListFactors(ctx, tn.ID, core.EnvTest)
		wantIDs(t, "ListFactors after the purge", ids(list, func(f twofactor.Factor) string { return f.ID }), []string{active.ID})
		got, err4 := tx.TwoFactor().LockFactor(ctx, tn.ID, core.EnvTest, active.ID)
		if got.LastUsedStep != 1000 {
			t.Errorf("LastUsedStep = %d, want 1000", got.LastUsedStep)
		}
		return firstErr(err, err3, err4)
	})
}

func twofactorBudget(t *testing.T, s ports.Store) {
	tn := newTenant(t, s)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.TwoFactor().FindSettings(ctx, tn.ID, core.EnvTest)
		if got.ApprovalAboveBaseUnits != nil || got.ApproveNewPayees || got.RequireSavedPayees {
			t.Errorf("FindSettings before any = %+v, want nothing protected", got)
		}
		above := int64(1000)
		noErr(t, "SaveSettings", tx.TwoFactor().SaveSettings(ctx, twofactor.Settings{TenantID: tn.ID, Environment: core.EnvTest,
			ApprovalAboveBaseUnits: &above, ApproveNewPayees: true, UpdatedAt: ledgerNow()}))
		got, err2 := tx.TwoFactor().FindSettings(ctx, tn.ID, core.EnvTest)
		if got.ApprovalAboveBaseUnits == nil || *got.ApprovalAboveBaseUnits != 1000 || !got.ApproveNewPayees {
			t.Errorf("FindSettings after a save = %+v", got)
		}
		return firstErr(err, err2)
	})
	for _, err := range concurrently(s, 5, func(ctx context.Context, tx ports.Tx, _ int) error {
		b, err := tx.TwoFactor().LockBudget(ctx, tn.ID, core.EnvTest, "tenant")
		if err != nil {
			return err
		}
		b.Failures = append(b.Failures, ledgerNow())
		return tx.TwoFactor().SaveBudget(ctx, b)
	}) {
		noErr(t, "budget unit", err)
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		b, err := tx.TwoFactor().LockBudget(ctx, tn.ID, core.EnvTest, "tenant")
		if len(b.Failures) != 5 {
			t.Errorf("budget holds %d failures after 5 racing units, want 5", len(b.Failures))
		}
		return err
	})
}

func twofactorChallenges(t *testing.T, s ports.Store) {
	tn, other := newTenant(t, s), newTenant(t, s)
	base := ledgerNow().Add(-time.Minute)
	challenge := func(at time.Time) twofactor.Challenge {
		return twofactor.Challenge{ID: core.NewID(core.PrefixChallenge), TenantID: tn.ID, Environment: core.EnvTest, Binding: "bind",
			SourceWalletID: core.NewID(core.PrefixWallet), AmountBaseUnits: 100, DestinationAddress: randomAddress(),
			DestinationLabel: "payee", Status: twofactor.ChallengePending, ExpiresAt: at.Add(5 * time.Minute), CreatedAt: at}
	}
	a, b := challenge(base), challenge(base.Add(time.Second))
	f := newFactor(tn.ID, twofactor.FactorPending, base)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateChallenge", tx.TwoFactor().CreateChallenge(ctx, a))
		noErr(t, "CreateChallenge", tx.TwoFactor().CreateChallenge(ctx, b))
		return tx.TwoFactor().CreateFactor(ctx, f)
	})
	satisfied := ledgerNow()
	a.Status, a.SatisfiedAt, a.Attempts = twofactor.ChallengeSatisfied, &satisfied, 1
	f.Status, f.VerifiedAt, f.Label = twofactor.FactorActive, &satisfied, "renamed"
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "UpdateChallenge", tx.TwoFactor().UpdateChallenge(ctx, a))
		return tx.TwoFactor().UpdateFactor(ctx, f)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.TwoFactor().LockChallenge(ctx, tn.ID, core.EnvTest, a.ID)
		if got.Status != twofactor.ChallengeSatisfied || got.SatisfiedAt == nil || got.Attempts != 1 {
			t.Errorf("after UpdateChallenge = %+v", got)
		}
		_, err2 := tx.TwoFactor().LockChallenge(ctx, other.ID, core.EnvTest, a.ID)
		wantCode(t, err2, twofactor.CodeChallengeNotFound)
		n, first, err3 := tx.TwoFactor().ChallengesCreatedSince(ctx, tn.ID, core.EnvTest, base)
		if n != 2 || !first.Equal(base) {
			t.Errorf("ChallengesCreatedSince = %d from %v, want 2 from %v", n, first, base)
		}
		if n, _, _ := tx.TwoFactor().ChallengesCreatedSince(ctx, tn.ID, core.EnvTest, base.Add(time.Second)); n != 1 {
			t.Errorf("ChallengesCreatedSince the second = %d, want 1", n)
		}
		factor, err4 := tx.TwoFactor().LockFactor(ctx, tn.ID, core.EnvTest, f.ID)
		if factor.Status != twofactor.FactorActive || factor.Label != "renamed" || factor.VerifiedAt == nil {
			t.Errorf("after UpdateFactor = %+v", factor)
		}
		noErr(t, "DeleteFactor", tx.TwoFactor().DeleteFactor(ctx, tn.ID, core.EnvTest, f.ID))
		_, err5 := tx.TwoFactor().LockFactor(ctx, tn.ID, core.EnvTest, f.ID)
		wantCode(t, err5, twofactor.CodeFactorNotFound)
		return firstErr(err, err3, err4)
	})
}
