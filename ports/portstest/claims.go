package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/ports"
)

// ClaimRepo is the contract of ports.ClaimRepo (adapters/postgres tests the details further):
// a claim is its sender's (CLAIM_NOT_FOUND for others), found by its escrow id, one per
// payment (INVALID_STATE for a second), due for expiry once past it; an escrow log is recorded
// once and forgotten on a reorg; and the escrow cursor is created at block 0, saved, and shared
// by units that race to create it; a resend supersedes the live link, and challenges are
// their claim's (CLAIM_CHALLENGE_NOT_FOUND for another) and counted by phone or IP.
func ClaimRepo(t *testing.T, s ports.Store) {
	runBehaviours(t, s, []behaviour{
		{"a claim is its sender's, one per payment, found by escrow id", claimFind},
		{"an escrow log records once and is forgotten on a reorg", claimEscrowEvents},
		{"the escrow cursor starts at 0, is saved, and racing creators share it", claimCursor},
		{"links supersede and are used; challenges are the claim's and counted", claimLinksAndChallenges},
	})
}

func newClaim(t *testing.T, s ports.Store, sender string) claim.Claim {
	t.Helper()
	p := newOfframpPayment(t, sender, 25_000_000)
	createOfframp(t, s, p)
	c := claim.New(core.EnvTest, p.ID, sender, p.SourceAmountBaseUnits, 84532, "base-sepolia", "usdc", p.RecipientPhoneHash,
		p.RecipientPhoneMasked, []byte("sealed"), time.Hour, ledgerNow())
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Claims().CreateClaim(ctx, c) })
	return c
}

func claimFind(t *testing.T, s ports.Store) {
	sender, other := newTenant(t, s), newTenant(t, s)
	c := newClaim(t, s, sender.ID)
	again := claim.New(core.EnvTest, c.PaymentID, sender.ID, 1, 84532, "base-sepolia", "usdc", c.PhoneHash, c.PhoneMasked,
		[]byte("sealed"), time.Hour, ledgerNow())
	err := unitErr(s, func(ctx context.Context, tx ports.Tx) error { return tx.Claims().CreateClaim(ctx, again) })
	wantCode(t, err, core.CodeInvalidState)
	c.Status, c.Funded, c.FundTxHash = claim.StatusLocked, true, "0x"+suffix(t)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error { return tx.Claims().UpdateClaim(ctx, c) })
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		got, err := tx.Claims().FindClaimForSender(ctx, core.EnvTest, sender.ID, c.ID)
		if got.Status != claim.StatusLocked || !got.Funded || got.FundTxHash != c.FundTxHash || got.AmountBaseUnits != c.AmountBaseUnits {
			t.Errorf("FindClaimForSender = %+v", got)
		}
		_, err2 := tx.Claims().FindClaimForSender(ctx, core.EnvTest, other.ID, c.ID)
		wantCode(t, err2, claim.CodeClaimNotFound)
		got, err3 := tx.Claims().LockClaimByOnchainID(ctx, core.EnvTest, c.ChainID, c.OnchainID)
		if got.ID != c.ID {
			t.Errorf("LockClaimByOnchainID = %s, want %s", got.ID, c.ID)
		}
		if got, err := tx.Claims().LockClaim(ctx, c.ID); err != nil || got.SenderTenantID != sender.ID {
			t.Errorf("LockClaim by id alone = %+v, %v", got, err)
		}
		_, err4 := tx.Claims().LockClaim(ctx, core.NewID(core.PrefixClaim))
		wantCode(t, err4, claim.CodeClaimNotFound)
		due, err5 := tx.Claims().DueClaimIDs(ctx, c.ExpiresAt.Add(2*time.Hour), time.Hour, 10_000)
		if !containsString(due, c.ID) {
			t.Errorf("DueClaimIDs past expiry and grace does not list the LOCKED claim")
		}
		due, _ = tx.Claims().DueClaimIDs(ctx, c.ExpiresAt.Add(time.Minute), time.Hour, 10_000)
		if containsString(due, c.ID) {
			t.Errorf("DueClaimIDs lists a LOCKED claim inside its grace")
		}
		return firstErr(err, err3, err5)
	})
}

func claimEscrowEvents(t *testing.T, s ports.Store) {
	c := newClaim(t, s, newTenant(t, s).ID)
	hash := "0x" + suffix(t)
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		first, err := tx.Claims().RecordEscrowEvent(ctx, c.SenderTenantID, 84532, hash, 3, c.ID, claim.EventFunded, ledgerNow())
		again, err2 := tx.Claims().RecordEscrowEvent(ctx, c.SenderTenantID, 84532, hash, 3, c.ID, claim.EventFunded, ledgerNow())
		if !first || again {
			t.Errorf("RecordEscrowEvent = %v then %v, want true then false", first, again)
		}
		id, kind, found, err3 := tx.Claims().DeleteEscrowEvent(ctx, 84532, hash, 3)
		if !found || id != c.ID || kind != claim.EventFunded {
			t.Errorf("DeleteEscrowEvent = %s, %s, %v", id, kind, found)
		}
		if _, _, found, _ := tx.Claims().DeleteEscrowEvent(ctx, 84532, hash, 3); found {
			t.Error("a forgotten log is found again")
		}
		return firstErr(err, err2, err3)
	})
}

func claimCursor(t *testing.T, s ports.Store) {
	chainID := int64(900_000) + int64(time.Now().UnixNano()%100_000)
	for _, err := range concurrently(s, 3, func(ctx context.Context, tx ports.Tx, _ int) error {
		c, err := tx.Claims().LockEscrowCursor(ctx, core.EnvTest, chainID, ledgerNow())
		if err == nil && c.NextBlock == 0 {
			c.NextBlock, c.UpdatedAt = 10, ledgerNow()
			return tx.Claims().SaveEscrowCursor(ctx, c)
		}
		if err == nil && c.NextBlock != 10 {
			t.Errorf("a racing creator saw block %d, want 0 or 10", c.NextBlock)
		}
		return err
	}) {
		noErr(t, "cursor unit", err)
	}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		c, err := tx.Claims().LockEscrowCursor(ctx, core.EnvTest, chainID, ledgerNow())
		if c.NextBlock != 10 {
			t.Errorf("cursor = %+v, want block 10", c)
		}
		return err
	})
}

func claimLinksAndChallenges(t *testing.T, s ports.Store) {
	c, stranger := newClaim(t, s, newTenant(t, s).ID), newTenant(t, s)
	at := ledgerNow()
	_, first := claim.NewToken()
	_, second := claim.NewToken()
	link := func(hash string) claim.Link {
		return claim.Link{TenantID: c.SenderTenantID, TokenHash: hash, ClaimID: c.ID, Environment: core.EnvTest, ExpiresAt: at.Add(time.Hour), CreatedAt: at}
	}
	phone, ip := "phone-"+suffix(t), "ip-"+suffix(t)
	ch := claim.Challenge{TenantID: c.SenderTenantID, ID: core.NewID(claim.PrefixChallenge), ClaimID: c.ID, Environment: core.EnvTest, CodeHash: "code", PhoneHash: phone,
		IPHash: ip, Status: claim.ChallengePending, AttemptsRemaining: 5, ExpiresAt: at.Add(10 * time.Minute), CreatedAt: at, UpdatedAt: at}
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		noErr(t, "CreateLink", tx.Claims().CreateLink(ctx, link(first)))
		noErr(t, "SupersedeLinks", tx.Claims().SupersedeLinks(ctx, c.SenderTenantID, c.ID, at))
		noErr(t, "CreateLink", tx.Claims().CreateLink(ctx, link(second)))
		return tx.Claims().CreateChallenge(ctx, ch)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		old, err := tx.Claims().LockLinkByTokenHash(ctx, first)
		fresh, err2 := tx.Claims().LockLinkByTokenHash(ctx, second)
		if old.SupersededAt == nil || fresh.SupersededAt != nil {
			t.Errorf("links = %+v and %+v, want only the first superseded", old, fresh)
		}
		fresh.UsedAt = &at
		noErr(t, "UpdateLink", tx.Claims().UpdateLink(ctx, fresh))
		_, err3 := tx.Claims().LockLinkByTokenHash(ctx, "no such hash")
		wantCode(t, err3, claim.CodeClaimNotFound)
		ch.Status, ch.VerifiedAt, ch.AttemptsRemaining = claim.ChallengeVerified, &at, 4
		noErr(t, "UpdateChallenge", tx.Claims().UpdateChallenge(ctx, ch))
		return firstErr(err, err2)
	})
	unit(t, s, func(ctx context.Context, tx ports.Tx) error {
		used, err := tx.Claims().LockLinkByTokenHash(ctx, second)
		if used.UsedAt == nil {
			t.Errorf("after UpdateLink = %+v", used)
		}
		got, err2 := tx.Claims().LockChallenge(ctx, c.SenderTenantID, c.ID, ch.ID)
		if got.Status != claim.ChallengeVerified || got.VerifiedAt == nil || got.AttemptsRemaining != 4 {
			t.Errorf("after UpdateChallenge = %+v", got)
		}
		_, err3 := tx.Claims().LockChallenge(ctx, c.SenderTenantID, core.NewID(core.PrefixClaim), ch.ID)
		wantCode(t, err3, claim.CodeChallengeNotFound)
		_, errOther := tx.Claims().LockChallenge(ctx, stranger.ID, c.ID, ch.ID)
		wantCode(t, errOther, claim.CodeChallengeNotFound)
		byPhone, err4 := tx.Claims().CountChallengesSince(ctx, phone, "", at)
		byIP, err5 := tx.Claims().CountChallengesSince(ctx, "", ip, at)
		later, err6 := tx.Claims().CountChallengesSince(ctx, phone, "", at.Add(time.Second))
		if byPhone != 1 || byIP != 1 || later != 0 {
			t.Errorf("CountChallengesSince = %d by phone, %d by IP, %d later; want 1, 1, 0", byPhone, byIP, later)
		}
		return firstErr(err, err2, err4, err5, err6)
	})
}
