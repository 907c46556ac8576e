package claims

import (
	"context"
	"crypto/hmac"
	"strconv"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// claimByToken resolves a link token to its locked link and claim; the link must be usable.
func (s *Service) claimByToken(ctx context.Context, tx txView, token string, now time.Time) (claim.Link, claim.Claim, error) {
	notFound := core.E(claim.CodeClaimNotFound, "this claim link is not valid")
	if !claim.WellFormedToken(token) {
		return claim.Link{}, claim.Claim{}, notFound
	}
	link, err := tx.Claims().LockLinkByTokenHash(ctx, claim.HashToken(token))
	if err != nil {
		return link, claim.Claim{}, err
	}
	if err := link.Usable(now); err != nil {
		return link, claim.Claim{}, err
	}
	c, err := tx.Claims().LockClaim(ctx, link.ClaimID)
	if err != nil {
		return link, c, err
	}
	if c.RedeemedAt == nil && (c.Status != claim.StatusOpen || c.Expired(now)) {
		return link, c, core.E(claim.CodeLinkExpired, "this claim has expired")
	}
	return link, c, nil
}

// InspectClaim is the public view of a claim link (GET /v1/claims/{claimToken}).
func (s *Service) InspectClaim(ctx context.Context, token string) (claim.PublicView, error) {
	var out claim.PublicView
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		_, c, err := s.claimByToken(ctx, tx, token, s.clock.Now())
		out = c.Public()
		return err
	})
	return out, err
}

// ClaimChallenge is a phone challenge's public answer.
type ClaimChallenge struct {
	ChallengeID string
	ExpiresAt   time.Time
	Verified    bool
}

// SendClaimPhoneCode texts a 6-digit code to the number on the claim record (never a
// client-supplied number), budgeted per phone and per client IP (both counted in the
// database, so every replica shares the budget).
func (s *Service) SendClaimPhoneCode(ctx context.Context, token, clientIP string) (ClaimChallenge, error) {
	if err := s.ready(); err != nil {
		return ClaimChallenge{}, err
	}
	now := s.clock.Now()
	var out ClaimChallenge
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		_, c, err := s.claimByToken(ctx, tx, token, now)
		if err != nil {
			return err
		}
		if c.Status != claim.StatusOpen || c.RedeemedAt != nil || c.Expired(now) {
			return core.E(claim.CodeNotRedeemable, "this claim is %s and can no longer be redeemed", c.Status)
		}
		ipHash := s.cipher.LookupHash(hashPurposeIP, clientIP)
		since := now.Add(-claim.CodeBudgetWindow)
		for _, b := range []struct {
			phone, ip string
			max       int
			scope     string
		}{{c.PhoneHash, "", s.codesPerPhone, "phone"}, {"", ipHash, s.codesPerIP, "ip"}} {
			n, err := tx.Claims().CountChallengesSince(ctx, b.phone, b.ip, since)
			if err != nil {
				return err
			}
			if n >= b.max {
				return core.E(core.CodeRateLimited, "too many codes requested; try again later").
					WithDetails(map[string]any{"scope": b.scope, "limit": b.max, "windowSeconds": int(claim.CodeBudgetWindow.Seconds()),
						"retryAfterSeconds": int(claim.CodeBudgetWindow.Seconds())})
			}
		}
		code := recipient.NewCode()
		ch := claim.Challenge{TenantID: c.SenderTenantID, ID: core.NewID(claim.PrefixChallenge), ClaimID: c.ID, Environment: c.Environment,
			PhoneHash: c.PhoneHash, IPHash: ipHash, Status: claim.ChallengePending, AttemptsRemaining: claim.ChallengeAttempts,
			ExpiresAt: now.Add(claim.ChallengeLifetime), CreatedAt: now, UpdatedAt: now}
		ch.CodeHash = s.claimCodeHash(ch.ID, code)
		if err := tx.Claims().CreateChallenge(ctx, ch); err != nil {
			return err
		}
		out = ClaimChallenge{ChallengeID: ch.ID, ExpiresAt: ch.ExpiresAt}
		return s.recipients.QueueSMS(ctx, "claim_challenge:"+ch.ID, ports.SMSMessage{TenantID: c.SenderTenantID, Environment: c.Environment, ToHash: c.PhoneHash,
			ToMasked: c.PhoneMasked, ToCiphertext: c.PhoneCiphertext, Purpose: "claim_phone_code",
			Body: "Your Corridor claim code is " + code + ". It expires in " + strconv.Itoa(int(claim.ChallengeLifetime.Minutes())) + " minutes."}, now)
	})
	return out, err
}

func (s *Service) claimCodeHash(challengeID, code string) string {
	return s.cipher.LookupHash(hashPurposeClaimCode, challengeID+":"+code)
}

// VerifyClaimPhoneCode checks a code against a challenge of the link's claim: 5 attempts, then
// the challenge is cancelled; codes expire. A wrong attempt is saved even though the request
// fails.
func (s *Service) VerifyClaimPhoneCode(ctx context.Context, token, challengeID, code string) (ClaimChallenge, error) {
	if err := s.ready(); err != nil {
		return ClaimChallenge{}, err
	}
	f := core.FieldErrors{}
	if strings.TrimSpace(challengeID) == "" {
		f.Add("challengeId", "is required")
	}
	if !recipient.ValidCodeFormat(code) {
		f.Add("code", "must be 6 digits")
	}
	if err := f.Err(); err != nil {
		return ClaimChallenge{}, err
	}
	now := s.clock.Now()
	var out ClaimChallenge
	var verdict error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		_, c, err := s.claimByToken(ctx, tx, token, now)
		if err != nil {
			return err
		}
		ch, err := tx.Claims().LockChallenge(ctx, c.SenderTenantID, c.ID, strings.TrimSpace(challengeID))
		if err != nil {
			return err
		}
		before := ch
		matches := hmac.Equal([]byte(ch.CodeHash), []byte(s.claimCodeHash(ch.ID, code)))
		verdict = ch.Verify(matches, now)
		out = ClaimChallenge{ChallengeID: ch.ID, ExpiresAt: ch.ExpiresAt, Verified: ch.Status == claim.ChallengeVerified}
		if ch.Status == before.Status && ch.AttemptsRemaining == before.AttemptsRemaining {
			return nil
		}
		return tx.Claims().UpdateChallenge(ctx, ch)
	})
	if err != nil {
		return ClaimChallenge{}, err
	}
	return out, verdict
}

// RedeemView is the redeemed claim's payment with its current quote set.
type RedeemView struct {
	Payment offramp.Payment
	Quotes  []offramp.Quote
}

// RedeemClaimInput is POST /v1/claims/{claimToken}/redeem.
type RedeemClaimInput struct {
	ChallengeID   string
	DestinationID string
}

// PrepareRedeem is a redeem's first step, outside any transaction: a short read of the claim
// the token names, then screening of its payment as the caller would receive it. A token that
// names no usable claim prepares nothing; RedeemClaim answers why.
func (s *Service) PrepareRedeem(ctx context.Context, p auth.Principal, token string) error {
	if !claim.WellFormedToken(token) {
		return nil
	}
	var paymentID string
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		link, err := tx.Claims().LockLinkByTokenHash(ctx, claim.HashToken(token))
		if err != nil {
			return nil
		}
		c, err := tx.Claims().LockClaim(ctx, link.ClaimID)
		if err == nil && c.Environment == p.Environment {
			paymentID = c.PaymentID
		}
		return nil
	})
	if err != nil || paymentID == "" {
		return err
	}
	return s.payments.PrepareRedeem(ctx, paymentID, p.TenantID)
}

// RedeemClaim moves a claim into the caller's tenant: it needs a VERIFIED phone challenge of
// this claim and one of the caller's ACTIVE destinations. The phone becomes a verified alias
// of the caller's tenant, the link is used up, and the payment goes to POLICY_CHECK, where the
// full composer runs before money moves. The escrow lock is sent after commit.
func (s *Service) RedeemClaim(ctx context.Context, p auth.Principal, token string, in RedeemClaimInput) (RedeemView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return RedeemView{}, err
	}
	if err := s.ready(); err != nil {
		return RedeemView{}, err
	}
	in, err := in.trimmed()
	if err != nil {
		return RedeemView{}, err
	}
	now := s.clock.Now()
	var view RedeemView
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		link, c, err := s.claimByToken(ctx, tx, token, now)
		if err != nil {
			return err
		}
		if c.Environment != p.Environment {
			return core.E(claim.CodeClaimNotFound, "this claim link is not valid")
		}
		if err := redeemable(c, p, now); err != nil {
			return err
		}
		ch, err := redeemableChallenge(ctx, tx, c.SenderTenantID, c.ID, in.ChallengeID, now)
		if err != nil {
			return err
		}
		dest, err := tx.Recipients().FindDestination(ctx, p.TenantID, p.Environment, in.DestinationID)
		if err != nil || dest.Status != recipient.DestActive {
			return core.E(offramp.CodeDestinationNotEligible, "destinationId is not one of your ACTIVE payout destinations")
		}
		if err := s.adoptClaimPhone(ctx, tx, p, c, now); err != nil {
			return err
		}
		ch.Status, ch.ConsumedAt, ch.UpdatedAt = claim.ChallengeConsumed, &now, now
		link.UsedAt = &now
		c.RecipientTenantID, c.RedeemedAt, c.UpdatedAt = p.TenantID, &now, now
		if err := tx.Claims().UpdateChallenge(ctx, ch); err != nil {
			return err
		}
		if err := tx.Claims().UpdateLink(ctx, link); err != nil {
			return err
		}
		if err := saveClaim(ctx, tx, c); err != nil {
			return err
		}
		pay, err := tx.Offramp().LockPayment(ctx, c.PaymentID)
		if err != nil {
			return err
		}
		pay.RecipientTenantID, pay.RequestedDestinationID = p.TenantID, dest.ID
		if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigClaimRedeemed}, now); err != nil {
			return err
		}
		if err := s.payments.RunPolicyCheck(ctx, tx, now, &pay); err != nil {
			return err
		}
		if err := s.payments.SavePayment(ctx, tx, pay); err != nil {
			return err
		}
		if err := s.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionLock}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts}); err != nil {
			return err
		}
		quotes, err := tx.Offramp().ActiveQuotes(ctx, pay.SenderTenantID, pay.ID)
		view = RedeemView{Payment: pay, Quotes: quotes}
		return err
	})
	return view, err
}

// trimmed is the input with its ids trimmed, or the fields that are missing.
func (in RedeemClaimInput) trimmed() (RedeemClaimInput, error) {
	f := core.FieldErrors{}
	in.ChallengeID, in.DestinationID = strings.TrimSpace(in.ChallengeID), strings.TrimSpace(in.DestinationID)
	if in.ChallengeID == "" {
		f.Add("challengeId", "is required")
	}
	if in.DestinationID == "" {
		f.Add("destinationId", "is required")
	}
	return in, f.Err()
}

// redeemableChallenge locks the claim's phone challenge the redeem names and checks it can be
// used: VERIFIED, of this claim, not consumed or expired.
func redeemableChallenge(ctx context.Context, tx txView, tenantID, claimID, challengeID string, now time.Time) (claim.Challenge, error) {
	ch, err := tx.Claims().LockChallenge(ctx, tenantID, claimID, challengeID)
	if core.HasCode(err, claim.CodeChallengeNotFound) {
		return claim.Challenge{}, core.E(claim.CodeChallengeNotUsable, "challengeId is not a verified phone challenge of this claim")
	}
	if err != nil {
		return claim.Challenge{}, err
	}
	return ch, ch.Redeemable(claimID, now)
}

// redeemable checks the claim itself for a redeem by p.
func redeemable(c claim.Claim, p auth.Principal, now time.Time) error {
	switch {
	case c.SenderTenantID == p.TenantID:
		return core.E(offramp.CodeSelfPayment, "the sender cannot redeem its own claim")
	case c.Status != claim.StatusOpen || c.RedeemedAt != nil:
		return core.E(claim.CodeNotRedeemable, "this claim is %s and can no longer be redeemed", c.Status)
	case c.Expired(now):
		return core.E(claim.CodeLinkExpired, "this claim has expired")
	case !c.Funded:
		return core.E(claim.CodeNotFunded, "the claim's escrow funding is not confirmed on chain yet; retry in a few seconds").
			WithDetails(map[string]any{"retryable": true})
	}
	return nil
}

// adoptClaimPhone makes the claim's phone a verified alias of the redeeming tenant (proved by
// the claim's challenge). A number another tenant verified meanwhile is PHONE_ALIAS_TAKEN.
func (s *Service) adoptClaimPhone(ctx context.Context, tx txView, p auth.Principal, c claim.Claim, now time.Time) error {
	raw, err := s.cipher.Decrypt(c.PhoneCiphertext, claimPhoneContext(c.ID))
	if err != nil {
		return err
	}
	return s.recipients.AdoptPhone(ctx, tx.Recipients(), p, c.PhoneHash, c.PhoneMasked, raw, now)
}
