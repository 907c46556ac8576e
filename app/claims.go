package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"corridor/app/kernel"
	"corridor/core"
	"corridor/core/auth"
	"corridor/core/claim"
	"corridor/core/offramp"
	"corridor/core/recipient"
	"corridor/ledger"
	"corridor/ports"
)

// Pending claims (SPEC.md Claim; issue 7). A payment to a phone number nobody has verified
// opens a claim: the amount is reserved on the sender's balance towards the claim's escrow
// account, a job funds the on-chain escrow, and the indexer's ClaimFunded posts the reservation
// into the escrow account (funded, D12). The recipient proves the phone through the link and a
// code, then redeems into its own tenant, and the payment continues through part 1's flow.

// claimDeps are the settings and ports of pending claims.
type claimDeps struct {
	escrows    map[core.Environment]ports.ClaimEscrow
	lifetime   time.Duration
	linkBase   string
	codesPerIP int
}

// DefaultClaimLinkBase prefixes the claim link texted to the phone.
const DefaultClaimLinkBase = "https://claim.corridor.test/c/"

func newClaimDeps(d Deps) claimDeps {
	c := claimDeps{escrows: d.ClaimEscrows, lifetime: d.ClaimLifetime, linkBase: d.ClaimLinkBase, codesPerIP: d.ClaimCodesPerIP}
	if c.codesPerIP <= 0 {
		c.codesPerIP = claim.MaxCodesPerIP
	}
	if c.lifetime <= 0 {
		c.lifetime = claim.DefaultLifetime
	}
	if c.linkBase == "" {
		c.linkBase = DefaultClaimLinkBase
	}
	return c
}

// escrow returns the environment's claim escrow, or CHAIN_UNAVAILABLE (D1).
func (a *App) escrow(env core.Environment) (ports.ClaimEscrow, error) {
	if e, ok := a.claims.escrows[env]; ok && e != nil && e.ClaimEscrowAddress() != ([20]byte{}) {
		return e, nil
	}
	return nil, core.E(core.CodeChainUnavailable, "pending claims need the claim escrow contract, which is not configured for %s in this deployment", env)
}

const (
	hashPurposeClaimCode = "claim-code"
	hashPurposeIP        = "ip"
)

func claimEscrowSpec(c claim.Claim) ledger.AccountSpec {
	return ledger.ClaimEscrow(c.Environment, kernel.ServiceAsset, c.SenderTenantID, c.ID)
}

// openClaim is intake outcome 2 (unknown phone): it opens the claim, reserves the amount on the
// sender's balance towards the claim's escrow account (a pending transfer; INSUFFICIENT_FUNDS
// reserves nothing), and enqueues the escrow funding and the link notification. Neither job's
// payload carries the phone number. pay is already stored in PENDING_CLAIM.
func (a *App) openClaim(ctx context.Context, tx ports.Tx, now time.Time, pay *offramp.Payment, phone recipient.Phone) error {
	chainID := chainForEnv[pay.Environment]
	c := claim.New(pay.Environment, pay.ID, pay.SenderTenantID, pay.SourceAmountBaseUnits, chainID, pay.SourceChainKey,
		pay.SourceAssetID, pay.RecipientPhoneHash, pay.RecipientPhoneMasked, nil, a.claims.lifetime, now)
	var err error
	if c.PhoneCiphertext, err = a.offramp.cipher.Encrypt([]byte(phone.E164), claimPhoneContext(c.ID)); err != nil {
		return err
	}
	accs, err := tx.Ledger().OpenAccounts(ctx, now, ledger.TenantAvailable(pay.Environment, kernel.ServiceAsset, pay.SenderTenantID), claimEscrowSpec(c))
	if err != nil {
		return err
	}
	pay.Reservation++
	t, err := a.post(ctx, tx, now, *pay, ledger.TransferSpec{Reference: paymentRef(*pay, "reserve", pay.Reservation),
		Type: ledger.TypePending, Postings: ledger.Move(accs[0].ID, accs[1].ID, pay.SourceAmountBaseUnits),
		Metadata: map[string]string{"claimId": c.ID}})
	if isCode(err, core.CodeInsufficientFunds) {
		return core.E(core.CodeInsufficientFunds, "the service balance does not cover %s USD; nothing was reserved",
			core.FormatUSD(pay.SourceAmountBaseUnits))
	}
	if err != nil {
		return err
	}
	pay.HoldTransferID, pay.ClaimID = t.ID, c.ID
	if err := tx.Claims().CreateClaim(ctx, c); err != nil {
		return err
	}
	if err := a.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionFund}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts}); err != nil {
		return err
	}
	return a.jobs.Enqueue(ctx, ClaimNotifyArgs{ClaimID: c.ID}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
}

func claimPhoneContext(claimID string) string { return "offramp_claim:" + claimID }

// sendClaimLink supersedes the claim's live links, stores a fresh one (only its sha256) and
// texts it to the number on the claim record. The SMS adapter gets the number encrypted.
func (a *App) sendClaimLink(ctx context.Context, tx ports.Tx, c claim.Claim, now time.Time) error {
	if err := tx.Claims().SupersedeLinks(ctx, c.ID, now); err != nil {
		return err
	}
	token, hash := claim.NewToken()
	if err := tx.Claims().CreateLink(ctx, claim.Link{TokenHash: hash, ClaimID: c.ID, Environment: c.Environment,
		ExpiresAt: c.ExpiresAt, CreatedAt: now}); err != nil {
		return err
	}
	body := "You have been sent " + core.FormatUSD(c.AmountBaseUnits) + " USD through Corridor. Claim it before " +
		c.ExpiresAt.Format("2006-01-02") + ": " + a.claims.linkBase + token
	return a.offramp.sms.Send(ctx, ports.SMSMessage{TenantID: c.SenderTenantID, Environment: c.Environment, ToHash: c.PhoneHash,
		ToMasked: c.PhoneMasked, ToCiphertext: c.PhoneCiphertext, Purpose: "claim_link", Body: body}, now)
}

// NotifyClaim is the claim.notify job: the first link of a newly opened claim.
func (a *App) NotifyClaim(ctx context.Context, claimID string) error {
	return a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		c, err := tx.Claims().LockClaim(ctx, claimID)
		if err != nil || c.Status != claim.StatusOpen || c.RedeemedAt != nil {
			return err
		}
		return a.sendClaimLink(ctx, tx, c, a.clock.Now())
	})
}

// claimByToken resolves a link token to its locked link and claim; the link must be usable.
func (a *App) claimByToken(ctx context.Context, tx ports.Tx, token string, now time.Time) (claim.Link, claim.Claim, error) {
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
func (a *App) InspectClaim(ctx context.Context, token string) (claim.PublicView, error) {
	var out claim.PublicView
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		_, c, err := a.claimByToken(ctx, tx, token, a.clock.Now())
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
func (a *App) SendClaimPhoneCode(ctx context.Context, token, clientIP string) (ClaimChallenge, error) {
	if err := a.requireRecipients(); err != nil {
		return ClaimChallenge{}, err
	}
	now := a.clock.Now()
	var out ClaimChallenge
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		_, c, err := a.claimByToken(ctx, tx, token, now)
		if err != nil {
			return err
		}
		if c.Status != claim.StatusOpen || c.RedeemedAt != nil || c.Expired(now) {
			return core.E(claim.CodeNotRedeemable, "this claim is %s and can no longer be redeemed", c.Status)
		}
		ipHash := a.offramp.cipher.LookupHash(hashPurposeIP, clientIP)
		since := now.Add(-claim.CodeBudgetWindow)
		for _, b := range []struct {
			phone, ip string
			max       int
			scope     string
		}{{c.PhoneHash, "", claim.MaxCodesPerPhone, "phone"}, {"", ipHash, a.claims.codesPerIP, "ip"}} {
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
		code := sixDigits()
		ch := claim.Challenge{ID: core.NewID(claim.PrefixChallenge), ClaimID: c.ID, Environment: c.Environment,
			PhoneHash: c.PhoneHash, IPHash: ipHash, Status: claim.ChallengePending, AttemptsRemaining: claim.ChallengeAttempts,
			ExpiresAt: now.Add(claim.ChallengeLifetime), CreatedAt: now, UpdatedAt: now}
		ch.CodeHash = a.claimCodeHash(ch.ID, code)
		if err := tx.Claims().CreateChallenge(ctx, ch); err != nil {
			return err
		}
		out = ClaimChallenge{ChallengeID: ch.ID, ExpiresAt: ch.ExpiresAt}
		return a.offramp.sms.Send(ctx, ports.SMSMessage{TenantID: c.SenderTenantID, Environment: c.Environment, ToHash: c.PhoneHash,
			ToMasked: c.PhoneMasked, ToCiphertext: c.PhoneCiphertext, Purpose: "claim_phone_code",
			Body: "Your Corridor claim code is " + code + ". It expires in " + itoa(int(claim.ChallengeLifetime.Minutes())) + " minutes."}, now)
	})
	return out, err
}

func (a *App) claimCodeHash(challengeID, code string) string {
	return a.offramp.cipher.LookupHash(hashPurposeClaimCode, challengeID+":"+code)
}

// VerifyClaimPhoneCode checks a code against a challenge of the link's claim: 5 attempts, then
// the challenge is cancelled; codes expire. A wrong attempt is saved even though the request
// fails.
func (a *App) VerifyClaimPhoneCode(ctx context.Context, token, challengeID, code string) (ClaimChallenge, error) {
	if err := a.requireRecipients(); err != nil {
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
	now := a.clock.Now()
	var out ClaimChallenge
	var verdict error
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		_, c, err := a.claimByToken(ctx, tx, token, now)
		if err != nil {
			return err
		}
		ch, err := tx.Claims().LockChallenge(ctx, c.ID, strings.TrimSpace(challengeID))
		if err != nil {
			return err
		}
		before := ch
		matches := hmac.Equal([]byte(ch.CodeHash), []byte(a.claimCodeHash(ch.ID, code)))
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

// RedeemClaimInput is POST /v1/claims/{claimToken}/redeem.
type RedeemClaimInput struct {
	ChallengeID   string
	DestinationID string
}

// RedeemClaim moves a claim into the caller's tenant: it needs a VERIFIED phone challenge of
// this claim and one of the caller's ACTIVE destinations. The phone becomes a verified alias
// of the caller's tenant, the link is used up, and the payment goes to POLICY_CHECK, where the
// full composer runs before money moves. The escrow lock is sent after commit.
func (a *App) RedeemClaim(ctx context.Context, p auth.Principal, token string, in RedeemClaimInput) (OfframpView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return OfframpView{}, err
	}
	if err := a.requireRecipients(); err != nil {
		return OfframpView{}, err
	}
	f := core.FieldErrors{}
	in.ChallengeID, in.DestinationID = strings.TrimSpace(in.ChallengeID), strings.TrimSpace(in.DestinationID)
	if in.ChallengeID == "" {
		f.Add("challengeId", "is required")
	}
	if in.DestinationID == "" {
		f.Add("destinationId", "is required")
	}
	if err := f.Err(); err != nil {
		return OfframpView{}, err
	}
	now := a.clock.Now()
	var view OfframpView
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		link, c, err := a.claimByToken(ctx, tx, token, now)
		if err != nil {
			return err
		}
		if c.Environment != p.Environment {
			return core.E(claim.CodeClaimNotFound, "this claim link is not valid")
		}
		if err := redeemable(c, p, now); err != nil {
			return err
		}
		ch, err := tx.Claims().LockChallenge(ctx, c.ID, in.ChallengeID)
		if isCode(err, claim.CodeChallengeNotFound) {
			return core.E(claim.CodeChallengeNotUsable, "challengeId is not a verified phone challenge of this claim")
		}
		if err != nil {
			return err
		}
		if err := ch.Redeemable(c.ID); err != nil {
			return err
		}
		dest, err := tx.Recipients().FindDestination(ctx, p.TenantID, p.Environment, in.DestinationID)
		if err != nil || dest.Status != recipient.DestActive {
			return core.E(offramp.CodeDestinationNotEligible, "destinationId is not one of your ACTIVE payout destinations")
		}
		if err := a.adoptClaimPhone(ctx, tx, p, c, now); err != nil {
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
		if err := tx.Claims().UpdateClaim(ctx, c); err != nil {
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
		if err := a.runPolicyCheck(ctx, tx, now, &pay); err != nil {
			return err
		}
		if err := tx.Offramp().UpdatePayment(ctx, pay); err != nil {
			return err
		}
		if err := a.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionLock}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts}); err != nil {
			return err
		}
		quotes, err := tx.Offramp().ActiveQuotes(ctx, pay.ID)
		view = OfframpView{Payment: pay, Quotes: quotes}
		return err
	})
	return view, err
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
func (a *App) adoptClaimPhone(ctx context.Context, tx ports.Tx, p auth.Principal, c claim.Claim, now time.Time) error {
	owner, err := tx.Recipients().FindVerifiedAlias(ctx, p.Environment, c.PhoneHash)
	switch {
	case err == nil && owner.TenantID == p.TenantID:
		return nil
	case err == nil:
		return core.E(recipient.CodePhoneAliasTaken, "this phone number is already verified by another tenant")
	case !isCode(err, recipient.CodePhoneAliasNotFound):
		return err
	}
	raw, err := a.offramp.cipher.Decrypt(c.PhoneCiphertext, claimPhoneContext(c.ID))
	if err != nil {
		return err
	}
	alias := recipient.Alias{ID: core.NewID("pha"), TenantID: p.TenantID, Environment: p.Environment, PhoneHash: c.PhoneHash,
		Masked: c.PhoneMasked, Status: recipient.AliasPending, CodeExpiresAt: now, CreatedAt: now}
	if alias.PhoneCiphertext, err = a.offramp.cipher.Encrypt(raw, "phone_alias:"+alias.ID); err != nil {
		return err
	}
	if err := tx.Recipients().CreateAlias(ctx, alias); err != nil {
		return err
	}
	// Verified by update, as an SMS-verified alias is: the unique index on verified numbers
	// answers a tenant that verified it meanwhile with PHONE_ALIAS_TAKEN.
	alias.Status, alias.VerifiedAt = recipient.AliasVerified, &now
	return tx.Recipients().UpdateAlias(ctx, alias)
}

// claimFunded reports whether a payment's money sits in its claim's escrow account: the claim
// was funded (its reservation posted) and the payment has not locked or re-reserved since.
func claimFunded(p offramp.Payment) bool {
	return p.ClaimID != "" && p.HoldTransferID == "" && !p.Status.Funded() && p.Status != offramp.StatusPendingClaim &&
		!p.Status.Terminal()
}

// paymentFunded is D12's funded for the composer's REJECT guard.
func paymentFunded(p offramp.Payment) bool { return p.Status.Funded() || claimFunded(p) }

// decisionHash is the hash of the composer's decision that a release commits on chain.
func decisionHash(c claim.Claim, p offramp.Payment, d offramp.Decision, now time.Time) string {
	reasons := make([]string, len(d.Reasons))
	for i, r := range d.Reasons {
		reasons[i] = string(r)
	}
	sum := sha256.Sum256([]byte("corridor.claim.release.v1\n" + c.OnchainID + "\n" + p.ID + "\n" + string(d.Verdict) + "\n" +
		strings.Join(reasons, ",") + "\n" + p.SelectedQuoteID + "\n" + now.UTC().Format(time.RFC3339Nano)))
	return "0x" + hex.EncodeToString(sum[:])
}

// releaseClaimFunds moves a claim-funded payment's money out of the claim's escrow account
// (to the payment's locked account at FUNDS_LOCKED, or back to the sender on a REJECT), re-runs
// the full composer for the decision hash, and enqueues the on-chain release of the escrow to
// the service's settlement address.
func (a *App) releaseClaimFunds(ctx context.Context, tx ports.Tx, now time.Time, p *offramp.Payment, to ledger.AccountSpec, step string) error {
	c, err := tx.Claims().LockClaim(ctx, p.ClaimID)
	if err != nil {
		return err
	}
	accs, err := tx.Ledger().OpenAccounts(ctx, now, claimEscrowSpec(c), to)
	if err != nil {
		return err
	}
	if _, err := a.post(ctx, tx, now, *p, ledger.TransferSpec{Reference: "offramp:" + p.ID + ":claim-" + step,
		Type: ledger.TypePosted, Postings: ledger.Move(accs[0].ID, accs[1].ID, p.SourceAmountBaseUnits),
		Metadata: map[string]string{"claimId": c.ID}}); err != nil {
		return err
	}
	comp, err := a.compose(ctx, tx, *p)
	if err != nil {
		return err
	}
	c.DecisionHash, c.UpdatedAt = decisionHash(c, *p, comp.decision, now), now
	if err := tx.Claims().UpdateClaim(ctx, c); err != nil {
		return err
	}
	return a.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionRelease}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
}

// ClaimView is a claim as its sender sees it.
type ClaimView struct {
	Claim   claim.Claim
	Payment offramp.Payment
}

// GetClaim returns a claim the caller sent.
func (a *App) GetClaim(ctx context.Context, p auth.Principal, id string) (ClaimView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsRead); err != nil {
		return ClaimView{}, err
	}
	var out ClaimView
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		c, err := tx.Claims().FindClaimForSender(ctx, p.Environment, p.TenantID, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		pay, err := tx.Offramp().FindPayment(ctx, p.Environment, p.TenantID, c.PaymentID)
		out = ClaimView{Claim: c, Payment: pay}
		return err
	})
	return out, err
}

// ResendClaimLink texts a fresh link (sender only, budgeted); the old link stops working.
func (a *App) ResendClaimLink(ctx context.Context, p auth.Principal, id string) (claim.Claim, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return claim.Claim{}, err
	}
	if err := a.requireRecipients(); err != nil {
		return claim.Claim{}, err
	}
	now := a.clock.Now()
	var out claim.Claim
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		found, err := tx.Claims().FindClaimForSender(ctx, p.Environment, p.TenantID, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		c, err := tx.Claims().LockClaim(ctx, found.ID)
		if err != nil {
			return err
		}
		if c.Status != claim.StatusOpen || c.RedeemedAt != nil || c.Expired(now) {
			return core.E(claim.CodeNotRedeemable, "this claim is %s and can no longer be redeemed; nothing was sent", c.Status)
		}
		if c.ResendWindowStart == nil || !now.Before(c.ResendWindowStart.Add(claim.ResendWindow)) {
			c.ResendWindowStart, c.ResendCount = &now, 0
		}
		if c.ResendCount >= claim.MaxResends {
			retry := c.ResendWindowStart.Add(claim.ResendWindow).Sub(now)
			return core.E(claim.CodeResendBudget, "the claim link was re-sent %d times in the last %d hours; try again later",
				claim.MaxResends, int(claim.ResendWindow.Hours())).
				WithDetails(map[string]any{"limit": claim.MaxResends, "retryAfterSeconds": int(retry.Seconds()) + 1})
		}
		c.ResendCount++
		c.UpdatedAt = now
		if err := tx.Claims().UpdateClaim(ctx, c); err != nil {
			return err
		}
		out = c
		return a.sendClaimLink(ctx, tx, c, now)
	})
	return out, err
}

// RequestClaimRefund is the sender's refund request: 409 CLAIM_NOT_EXPIRED before expiry;
// afterwards it expires the claim if no job has yet (funded: REFUND_PENDING and the on-chain
// refund; unfunded: the escrow id is cancelled, then CANCELED) and answers where it stands.
// Repeating it changes nothing.
func (a *App) RequestClaimRefund(ctx context.Context, p auth.Principal, id string) (ClaimView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return ClaimView{}, err
	}
	return a.expireForSender(ctx, p, id, false)
}

// ExpireClaimNow is the sandbox helper (D10, TEST only): the claim's lifetime ends now.
func (a *App) ExpireClaimNow(ctx context.Context, p auth.Principal, id string) (ClaimView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeRampsWrite); err != nil {
		return ClaimView{}, err
	}
	if p.Environment != core.EnvTest {
		return ClaimView{}, core.E(core.CodeSandboxOnly, "sandbox helpers exist only in TEST")
	}
	return a.expireForSender(ctx, p, id, true)
}

func (a *App) expireForSender(ctx context.Context, p auth.Principal, id string, force bool) (ClaimView, error) {
	now := a.clock.Now()
	var out ClaimView
	err := a.store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		found, err := tx.Claims().FindClaimForSender(ctx, p.Environment, p.TenantID, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		c, err := tx.Claims().LockClaim(ctx, found.ID)
		if err != nil {
			return err
		}
		pay, err := tx.Offramp().LockPayment(ctx, c.PaymentID)
		if err != nil {
			return err
		}
		if force && c.Status == claim.StatusOpen && c.RedeemedAt == nil && !c.Expired(now) {
			c.ExpiresAt = now
		}
		if (c.Status == claim.StatusOpen || c.Status == claim.StatusLocked) && !c.Expired(now) {
			return core.E(claim.CodeNotExpired, "the claim expires at %s; a refund can be requested after that",
				c.ExpiresAt.Format(time.RFC3339)).WithDetails(map[string]any{"expiresAt": c.ExpiresAt.Format(time.RFC3339)})
		}
		if err := a.expireClaim(ctx, tx, now, &c, &pay); err != nil {
			return err
		}
		out = ClaimView{Claim: c, Payment: pay}
		return nil
	})
	return out, err
}
