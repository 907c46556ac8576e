package claims

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// Pending claims (docs/api.md Claim). A payment to a phone number nobody has verified opens a
// claim: the amount is reserved on the sender's balance towards the claim's escrow account, a
// job funds the on-chain escrow, and the indexer's ClaimFunded posts the reservation into the
// escrow account (funded, docs/decisions/ledger.md). The recipient proves the phone through the link and a code,
// then redeems into its own tenant, and the payment continues through the flow of a payment to
// a known phone: POLICY_CHECK, quotes, the recipient's confirmation.

// DefaultClaimLinkBase prefixes the claim link texted to the phone.
const DefaultClaimLinkBase = "https://claim.corridor.test/c/"

// escrow returns the environment's claim escrow, or CHAIN_UNAVAILABLE (docs/decisions/tenancy.md):
// a payment to an unknown phone checks the same before it waits in PENDING_CLAIM.
func (s *Service) escrow(env core.Environment) (ports.ClaimEscrow, error) {
	return s.escrows.Require(env)
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
func (s *Service) openClaim(ctx context.Context, tx txView, now time.Time, pay *offramp.Payment, phone recipient.Phone) error {
	source, err := s.sourceChains.Require(pay.Environment)
	if err != nil {
		return err
	}
	// The claim's funding is the relayer-paid call it charges; its lock, release or refund
	// follow from the one funded claim.
	if err := s.relayerBudget.Charge(ctx, tx, pay.SenderTenantID, pay.Environment, now); err != nil {
		return err
	}
	chainID := source.ChainID
	c := claim.New(pay.Environment, pay.ID, pay.SenderTenantID, pay.SourceAmountBaseUnits, chainID, pay.SourceChainKey,
		pay.SourceAssetID, pay.RecipientPhoneHash, pay.RecipientPhoneMasked, nil, s.lifetime, now)
	if c.PhoneCiphertext, err = s.cipher.Encrypt([]byte(phone.E164), claimPhoneContext(c.ID)); err != nil {
		return err
	}
	accs, err := tx.Ledger().OpenAccounts(ctx, now, ledger.TenantAvailable(pay.Environment, kernel.ServiceAsset, pay.SenderTenantID), claimEscrowSpec(c))
	if err != nil {
		return err
	}
	pay.Reservation++
	t, err := s.payments.Post(ctx, tx.Ledger(), now, *pay, ledger.TransferSpec{Reference: pay.LedgerRef("reserve", pay.Reservation),
		Type: ledger.TypePending, Postings: ledger.Move(accs[0].ID, accs[1].ID, pay.SourceAmountBaseUnits),
		Metadata: map[string]string{"claimId": c.ID}})
	if core.HasCode(err, core.CodeInsufficientFunds) {
		return core.E(core.CodeInsufficientFunds, "the service balance does not cover %s USD; nothing was reserved",
			core.FormatUSD(pay.SourceAmountBaseUnits))
	}
	if err != nil {
		return err
	}
	pay.HoldTransferID, pay.ClaimID = t.ID, c.ID
	if err := createClaim(ctx, tx, c); err != nil {
		return err
	}
	if err := s.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionFund}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts}); err != nil {
		return err
	}
	return s.jobs.Enqueue(ctx, ClaimNotifyArgs{ClaimID: c.ID}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
}

func claimPhoneContext(claimID string) string { return "offramp_claim:" + claimID }

// sendClaimLink supersedes the claim's live links, stores a fresh one (only its sha256) and
// texts it to the number on the claim record. The SMS adapter gets the number encrypted.
func (s *Service) sendClaimLink(ctx context.Context, tx txView, c claim.Claim, now time.Time) error {
	if err := tx.Claims().SupersedeLinks(ctx, c.SenderTenantID, c.ID, now); err != nil {
		return err
	}
	token, hash := claim.NewToken()
	if err := tx.Claims().CreateLink(ctx, claim.Link{TenantID: c.SenderTenantID, TokenHash: hash, ClaimID: c.ID, Environment: c.Environment,
		ExpiresAt: c.ExpiresAt, CreatedAt: now}); err != nil {
		return err
	}
	body := "You have been sent " + core.FormatUSD(c.AmountBaseUnits) + " USD through Corridor. Claim it before " +
		c.ExpiresAt.Format("2006-01-02") + ": " + s.linkBase + token
	return s.recipients.QueueSMS(ctx, "claim_link:"+hash, ports.SMSMessage{TenantID: c.SenderTenantID, Environment: c.Environment, ToHash: c.PhoneHash,
		ToMasked: c.PhoneMasked, ToCiphertext: c.PhoneCiphertext, Purpose: "claim_link", Body: body}, now)
}

// NotifyClaim is the claim.notify job: the first link of a newly opened claim.
func (s *Service) NotifyClaim(ctx context.Context, claimID string) error {
	return s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		c, err := tx.Claims().LockClaim(ctx, claimID)
		if err != nil || c.Status != claim.StatusOpen || c.RedeemedAt != nil {
			return err
		}
		return s.sendClaimLink(ctx, tx, c, s.clock.Now())
	})
}

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
func (s *Service) releaseClaimFunds(ctx context.Context, tx txView, now time.Time, p *offramp.Payment, to ledger.AccountSpec, step string) error {
	c, err := tx.Claims().LockClaim(ctx, p.ClaimID)
	if err != nil {
		return err
	}
	accs, err := tx.Ledger().OpenAccounts(ctx, now, claimEscrowSpec(c), to)
	if err != nil {
		return err
	}
	if _, err := s.payments.Post(ctx, tx.Ledger(), now, *p, ledger.TransferSpec{Reference: "offramp:" + p.ID + ":claim-" + step,
		Type: ledger.TypePosted, Postings: ledger.Move(accs[0].ID, accs[1].ID, p.SourceAmountBaseUnits),
		Metadata: map[string]string{"claimId": c.ID}}); err != nil {
		return err
	}
	decision, err := s.payments.Decide(ctx, tx, *p)
	if err != nil {
		return err
	}
	c.DecisionHash, c.UpdatedAt = decisionHash(c, *p, decision, now), now
	if err := saveClaim(ctx, tx, c); err != nil {
		return err
	}
	return s.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionRelease}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
}

// cancelPendingClaim cancels a PENDING_CLAIM payment whose escrow funding has not been indexed:
// its reservation is voided, the payment ends CANCELED, and the claim closes (EXPIRED, then
// CANCELED once the escrow's cancel is indexed) with its link dead. The escrow id is cancelled
// on chain, so a funding still in flight reverts; a funding that landed first is refunded to
// the settlement account when indexed (the ledger never recorded it). A funded claim is
// refused: its money leaves only by the claim's refund at expiry.
func (s *Service) cancelPendingClaim(ctx context.Context, tx txView, now time.Time, pay *offramp.Payment) error {
	c, err := tx.Claims().LockClaim(ctx, pay.ClaimID)
	if err != nil {
		return err
	}
	if c.Funded || pay.HoldTransferID == "" {
		return core.E(offramp.CodeClaimFunded, "the claim's escrow is funded: it can no longer be canceled; it is refunded if nobody claims it by %s",
			c.ExpiresAt.UTC().Format(time.RFC3339))
	}
	if c.Status != claim.StatusOpen || c.RedeemedAt != nil {
		return core.E(core.CodeInvalidState, "the claim is %s: only an open claim can be canceled", c.Status)
	}
	if _, err := pay.Apply(offramp.Step{Trigger: offramp.TrigSenderCancel, Guard: offramp.GuardClaimUnfunded}, now); err != nil {
		return err
	}
	if err := s.payments.VoidReservation(ctx, tx.Ledger(), now, pay); err != nil {
		return err
	}
	pay.FailureReason = "CANCELED_BY_SENDER"
	if err := c.Apply(claim.TrigExpiry, now); err != nil {
		return err
	}
	if err := tx.Claims().SupersedeLinks(ctx, c.SenderTenantID, c.ID, now); err != nil {
		return err
	}
	if err := saveClaim(ctx, tx, c); err != nil {
		return err
	}
	return s.jobs.Enqueue(ctx, ClaimChainArgs{ClaimID: c.ID, Action: claimActionCancel}, ports.JobOptions{MaxAttempts: claimJobMaxAttempts})
}
