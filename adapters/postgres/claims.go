package postgres

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/ports"
)

// claimRepo implements ports.ClaimRepo over offramp_claims, offramp_claim_links,
// offramp_claim_challenges, offramp_escrow_events and offramp_escrow_cursors.
type claimRepo struct{ db bun.IDB }

var _ ports.ClaimRepo = claimRepo{}

// maxDueClaims bounds one expiry pass when the caller gives no usable limit.
const maxDueClaims = 1000

var (
	errClaimNotFound     = core.E(claim.CodeClaimNotFound, "claim not found")
	errClaimLinkNotFound = core.E(claim.CodeClaimNotFound, "claim link not found")
	errChallengeNotFound = core.E(claim.CodeChallengeNotFound, "phone challenge not found for this claim")
)

type claimModel struct {
	bun.BaseModel     `bun:"table:offramp_claims"`
	SenderTenantID    string     `bun:"sender_tenant_id,pk"`
	ID                string     `bun:"id,pk"`
	OnchainID         string     `bun:"onchain_id"`
	Environment       string     `bun:"environment"`
	PaymentID         string     `bun:"payment_id"`
	RecipientTenantID *string    `bun:"recipient_tenant_id"`
	PhoneHash         string     `bun:"phone_hash"`
	PhoneMasked       string     `bun:"phone_masked"`
	PhoneCiphertext   []byte     `bun:"phone_ciphertext"`
	AmountBaseUnits   int64      `bun:"amount_base_units"`
	ChainID           int64      `bun:"chain_id"`
	ChainKey          string     `bun:"chain_key"`
	AssetID           string     `bun:"asset_id"`
	MetadataHash      string     `bun:"metadata_hash"`
	Status            string     `bun:"status"`
	Funded            bool       `bun:"funded"`
	FundTxHash        *string    `bun:"fund_tx_hash"`
	LockTxHash        *string    `bun:"lock_tx_hash"`
	ReleaseTxHash     *string    `bun:"release_tx_hash"`
	RefundTxHash      *string    `bun:"refund_tx_hash"`
	CancelTxHash      *string    `bun:"cancel_tx_hash"`
	DecisionHash      *string    `bun:"decision_hash"`
	ExpiresAt         time.Time  `bun:"expires_at"`
	RedeemedAt        *time.Time `bun:"redeemed_at"`
	ResendCount       int        `bun:"resend_count"`
	ResendWindowStart *time.Time `bun:"resend_window_start"`
	CreatedAt         time.Time  `bun:"created_at"`
	UpdatedAt         time.Time  `bun:"updated_at"`
}

func claimFromDomain(c claim.Claim) claimModel {
	return claimModel{
		ID: c.ID, OnchainID: c.OnchainID, Environment: string(c.Environment), PaymentID: c.PaymentID,
		SenderTenantID: c.SenderTenantID, RecipientTenantID: nullable(c.RecipientTenantID), PhoneHash: c.PhoneHash,
		PhoneMasked: c.PhoneMasked, PhoneCiphertext: c.PhoneCiphertext, AmountBaseUnits: c.AmountBaseUnits,
		ChainID: c.ChainID, ChainKey: c.ChainKey, AssetID: c.AssetID, MetadataHash: c.MetadataHash,
		Status: string(c.Status), Funded: c.Funded, FundTxHash: nullable(c.FundTxHash), LockTxHash: nullable(c.LockTxHash),
		ReleaseTxHash: nullable(c.ReleaseTxHash), RefundTxHash: nullable(c.RefundTxHash),
		CancelTxHash: nullable(c.CancelTxHash), DecisionHash: nullable(c.DecisionHash), ExpiresAt: c.ExpiresAt.UTC(),
		RedeemedAt: utcPtr(c.RedeemedAt), ResendCount: c.ResendCount, ResendWindowStart: utcPtr(c.ResendWindowStart),
		CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC(),
	}
}

// domain converts a row back, checking what claim.New guarantees of a new claim.
func (m claimModel) domain() (claim.Claim, error) {
	c := claim.Claim{
		ID: m.ID, OnchainID: m.OnchainID, Environment: core.Environment(m.Environment), PaymentID: m.PaymentID,
		SenderTenantID: m.SenderTenantID, RecipientTenantID: deref(m.RecipientTenantID), PhoneHash: m.PhoneHash,
		PhoneMasked: m.PhoneMasked, PhoneCiphertext: m.PhoneCiphertext, AmountBaseUnits: m.AmountBaseUnits,
		ChainID: m.ChainID, ChainKey: m.ChainKey, AssetID: m.AssetID, MetadataHash: m.MetadataHash,
		Status: claim.Status(m.Status), Funded: m.Funded, FundTxHash: deref(m.FundTxHash), LockTxHash: deref(m.LockTxHash),
		ReleaseTxHash: deref(m.ReleaseTxHash), RefundTxHash: deref(m.RefundTxHash), CancelTxHash: deref(m.CancelTxHash),
		DecisionHash: deref(m.DecisionHash), ExpiresAt: m.ExpiresAt.UTC(), RedeemedAt: utcPtr(m.RedeemedAt),
		ResendCount: m.ResendCount, ResendWindowStart: utcPtr(m.ResendWindowStart),
		CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC(),
	}
	_, onchainErr := claim.Bytes32(c.OnchainID)
	_, metadataErr := claim.Bytes32(c.MetadataHash)
	if !c.Environment.Valid() || !validClaimStatus(c.Status) || c.AmountBaseUnits <= 0 || c.ChainID <= 0 ||
		c.PhoneHash == "" || len(c.PhoneCiphertext) == 0 || c.ResendCount < 0 || onchainErr != nil || metadataErr != nil {
		return claim.Claim{}, fmt.Errorf("postgres: corrupt claim %s (environment %q, status %q, amount %d, chain %d)",
			m.ID, m.Environment, m.Status, m.AmountBaseUnits, m.ChainID)
	}
	return c, nil
}

func validClaimStatus(s claim.Status) bool {
	for _, row := range claim.Table {
		if s == row.From || s == row.To {
			return true
		}
	}
	return false
}

type claimLinkModel struct {
	bun.BaseModel `bun:"table:offramp_claim_links"`
	TenantID      string     `bun:"tenant_id,pk"`
	TokenHash     string     `bun:"token_hash,pk"`
	ClaimID       string     `bun:"claim_id"`
	Environment   string     `bun:"environment"`
	ExpiresAt     time.Time  `bun:"expires_at"`
	UsedAt        *time.Time `bun:"used_at"`
	SupersededAt  *time.Time `bun:"superseded_at"`
	CreatedAt     time.Time  `bun:"created_at"`
}

func claimLinkFromDomain(l claim.Link) claimLinkModel {
	return claimLinkModel{TenantID: l.TenantID, TokenHash: l.TokenHash, ClaimID: l.ClaimID, Environment: string(l.Environment),
		ExpiresAt: l.ExpiresAt.UTC(), UsedAt: utcPtr(l.UsedAt), SupersededAt: utcPtr(l.SupersededAt), CreatedAt: l.CreatedAt.UTC()}
}

func (m claimLinkModel) domain() (claim.Link, error) {
	l := claim.Link{TenantID: m.TenantID, TokenHash: m.TokenHash, ClaimID: m.ClaimID, Environment: core.Environment(m.Environment),
		ExpiresAt: m.ExpiresAt.UTC(), UsedAt: utcPtr(m.UsedAt), SupersededAt: utcPtr(m.SupersededAt), CreatedAt: m.CreatedAt.UTC()}
	if l.TokenHash == "" || l.ClaimID == "" || !l.Environment.Valid() {
		return claim.Link{}, fmt.Errorf("postgres: corrupt claim link of claim %s (environment %q)", m.ClaimID, m.Environment)
	}
	return l, nil
}

type claimChallengeModel struct {
	bun.BaseModel     `bun:"table:offramp_claim_challenges"`
	TenantID          string     `bun:"tenant_id,pk"`
	ID                string     `bun:"id,pk"`
	ClaimID           string     `bun:"claim_id"`
	Environment       string     `bun:"environment"`
	CodeHash          string     `bun:"code_hash"`
	PhoneHash         string     `bun:"phone_hash"`
	IPHash            string     `bun:"ip_hash"`
	Status            string     `bun:"status"`
	AttemptsRemaining int        `bun:"attempts_remaining"`
	ExpiresAt         time.Time  `bun:"expires_at"`
	VerifiedAt        *time.Time `bun:"verified_at"`
	ConsumedAt        *time.Time `bun:"consumed_at"`
	CreatedAt         time.Time  `bun:"created_at"`
	UpdatedAt         time.Time  `bun:"updated_at"`
}

func claimChallengeFromDomain(c claim.Challenge) claimChallengeModel {
	return claimChallengeModel{TenantID: c.TenantID, ID: c.ID, ClaimID: c.ClaimID, Environment: string(c.Environment), CodeHash: c.CodeHash,
		PhoneHash: c.PhoneHash, IPHash: c.IPHash, Status: string(c.Status), AttemptsRemaining: c.AttemptsRemaining,
		ExpiresAt: c.ExpiresAt.UTC(), VerifiedAt: utcPtr(c.VerifiedAt), ConsumedAt: utcPtr(c.ConsumedAt),
		CreatedAt: c.CreatedAt.UTC(), UpdatedAt: c.UpdatedAt.UTC()}
}

func (m claimChallengeModel) domain() (claim.Challenge, error) {
	c := claim.Challenge{TenantID: m.TenantID, ID: m.ID, ClaimID: m.ClaimID, Environment: core.Environment(m.Environment), CodeHash: m.CodeHash,
		PhoneHash: m.PhoneHash, IPHash: m.IPHash, Status: claim.ChallengeStatus(m.Status),
		AttemptsRemaining: m.AttemptsRemaining, ExpiresAt: m.ExpiresAt.UTC(), VerifiedAt: utcPtr(m.VerifiedAt),
		ConsumedAt: utcPtr(m.ConsumedAt), CreatedAt: m.CreatedAt.UTC(), UpdatedAt: m.UpdatedAt.UTC()}
	switch c.Status {
	case claim.ChallengePending, claim.ChallengeVerified, claim.ChallengeCancelled, claim.ChallengeConsumed:
	default:
		return claim.Challenge{}, fmt.Errorf("postgres: challenge %s has status %q", m.ID, m.Status)
	}
	if !c.Environment.Valid() || c.AttemptsRemaining < 0 {
		return claim.Challenge{}, fmt.Errorf("postgres: corrupt challenge %s (environment %q, attempts %d)", m.ID, m.Environment, m.AttemptsRemaining)
	}
	return c, nil
}

// CreateClaim inserts a claim. A second claim for the same payment is INVALID_STATE: the
// payment already has its claim.
//
// The claim's id and escrow id get their lookup rows in the same unit: jobs and links find a
// claim by id, the escrow indexer by its escrow id, before the tenant is known. The escrow id's
// row keeps it unique across tenants, as the claims' own constraint was before it was per tenant.
func (r claimRepo) CreateClaim(ctx context.Context, c claim.Claim) error {
	m := claimFromDomain(c)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	if code, constraint := constraintOf(err); code == "23505" && constraint == "offramp_claims_payment_key" {
		return core.E(core.CodeInvalidState, "off-ramp payment %s already has a claim", c.PaymentID)
	}
	if err != nil {
		return err
	}
	q := rawQuerier(r.db)
	if err := addLookup(ctx, q, c.ID, lookupOfframpClaim, c.SenderTenantID); err != nil {
		return err
	}
	return addLookup(ctx, q, onchainKey(c.Environment, c.ChainID, c.OnchainID), lookupClaimOnchain, c.SenderTenantID)
}

func onchainKey(env core.Environment, chainID int64, onchainID string) string {
	return fmt.Sprintf("%s:%d:%s", env, chainID, strings.ToLower(onchainID))
}

// claimTenant is the sender's tenant (the claim's shard) of a looked-up value; CLAIM_NOT_FOUND
// when no claim has it.
func (r claimRepo) claimTenant(ctx context.Context, key, kind string, notFound error) (string, error) {
	tenantID, ok, err := lookupTenant(ctx, rawQuerier(r.db), key, kind)
	if err == nil && !ok {
		err = notFound
	}
	return tenantID, err
}

func (r claimRepo) FindClaimForSender(ctx context.Context, env core.Environment, senderTenantID, id string) (claim.Claim, error) {
	return oneRow[claim.Claim, claimModel](ctx, r.db.NewSelect().
		Where("environment = ? AND sender_tenant_id = ? AND id = ?", string(env), senderTenantID, id), errClaimNotFound)
}

// LockClaim runs where only the id is known (jobs, links): the id's lookup row first.
func (r claimRepo) LockClaim(ctx context.Context, id string) (claim.Claim, error) {
	tenantID, err := r.claimTenant(ctx, id, lookupOfframpClaim, errClaimNotFound)
	if err != nil {
		return claim.Claim{}, err
	}
	return oneRow[claim.Claim, claimModel](ctx, r.db.NewSelect().Where("sender_tenant_id = ? AND id = ?", tenantID, id).For("UPDATE"), errClaimNotFound)
}

// LockClaimByOnchainID matches the stored canonical form (lower-case hex, enforced by a CHECK).
func (r claimRepo) LockClaimByOnchainID(ctx context.Context, env core.Environment, chainID int64, onchainID string) (claim.Claim, error) {
	tenantID, err := r.claimTenant(ctx, onchainKey(env, chainID, onchainID), lookupClaimOnchain, errClaimNotFound)
	if err != nil {
		return claim.Claim{}, err
	}
	return oneRow[claim.Claim, claimModel](ctx, r.db.NewSelect().
		Where("sender_tenant_id = ? AND environment = ? AND chain_id = ? AND onchain_id = ?", tenantID, string(env), chainID, strings.ToLower(onchainID)).
		For("UPDATE"), errClaimNotFound)
}

// UpdateClaim rewrites every column but the id; a claim that is not there is CLAIM_NOT_FOUND.
func (r claimRepo) UpdateClaim(ctx context.Context, c claim.Claim) error {
	m := claimFromDomain(c)
	res, err := r.db.NewUpdate().Model(&m).WherePK().Exec(ctx)
	return oneRowAffected(res, err, errClaimNotFound)
}

// DueClaimIDs reads each status's range on offramp_claims_due_idx separately, so neither scan
// goes past its cut-off, then merges them by expiry (id breaks ties, for a stable order).
// deadExpiry finds claim c among the items the expiry pass gave up on.
// It is not correlated with the claim: on Citus the claims are distributed and the failures
// local, and Citus reads such a subquery once and sends its result to the shards.
const deadExpiry = `SELECT f.item FROM background_failures f WHERE f.pass = 'claim.expiry' AND f.status = 'DEAD' AND f.item IS NOT NULL`

func (r claimRepo) DueClaimIDs(ctx context.Context, now time.Time, grace time.Duration, limit int) ([]string, error) {
	if limit <= 0 || limit > maxDueClaims {
		limit = maxDueClaims
	}
	now = now.UTC()
	var ids []string
	// A claim the expiry pass gave up on (DEAD in background_failures) waits for an operator.
	err := r.db.NewRaw(`SELECT id FROM (
    (SELECT id, expires_at FROM offramp_claims c WHERE status = ? AND expires_at <= ? AND id NOT IN (`+deadExpiry+`) ORDER BY expires_at, id LIMIT ?)
    UNION ALL
    (SELECT id, expires_at FROM offramp_claims c WHERE status = ? AND expires_at <= ? AND id NOT IN (`+deadExpiry+`) ORDER BY expires_at, id LIMIT ?)
) AS due ORDER BY expires_at, id LIMIT ?`,
		string(claim.StatusOpen), now, limit, string(claim.StatusLocked), now.Add(-grace), limit, limit).Scan(ctx, &ids)
	return ids, err
}

// CreateLink writes the token hash's lookup row in the link's unit: the public claim page
// finds the link (and its claim's tenant) by it.
func (r claimRepo) CreateLink(ctx context.Context, l claim.Link) error {
	m := claimLinkFromDomain(l)
	if _, err := r.db.NewInsert().Model(&m).Exec(ctx); err != nil {
		return err
	}
	return addLookup(ctx, rawQuerier(r.db), l.TokenHash, lookupClaimLink, l.TenantID)
}

// SupersedeLinks leaves used and already superseded links as they are.
func (r claimRepo) SupersedeLinks(ctx context.Context, tenantID, claimID string, at time.Time) error {
	_, err := r.db.NewUpdate().Model((*claimLinkModel)(nil)).Set("superseded_at = ?", at.UTC()).
		Where("tenant_id = ? AND claim_id = ? AND superseded_at IS NULL AND used_at IS NULL", tenantID, claimID).Exec(ctx)
	return err
}

// LockLinkByTokenHash runs on the public claim page, before any tenant is known: the token
// hash's lookup row names the claim's tenant.
func (r claimRepo) LockLinkByTokenHash(ctx context.Context, tokenHash string) (claim.Link, error) {
	tenantID, err := r.claimTenant(ctx, tokenHash, lookupClaimLink, errClaimLinkNotFound)
	if err != nil {
		return claim.Link{}, err
	}
	return oneRow[claim.Link, claimLinkModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND token_hash = ?", tenantID, tokenHash).For("UPDATE"),
		errClaimLinkNotFound)
}

func (r claimRepo) UpdateLink(ctx context.Context, l claim.Link) error {
	m := claimLinkFromDomain(l)
	res, err := r.db.NewUpdate().Model(&m).WherePK().Exec(ctx)
	return oneRowAffected(res, err, errClaimLinkNotFound)
}

func (r claimRepo) CreateChallenge(ctx context.Context, c claim.Challenge) error {
	m := claimChallengeFromDomain(c)
	_, err := r.db.NewInsert().Model(&m).Exec(ctx)
	return err
}

func (r claimRepo) LockChallenge(ctx context.Context, tenantID, claimID, id string) (claim.Challenge, error) {
	return oneRow[claim.Challenge, claimChallengeModel](ctx, r.db.NewSelect().
		Where("tenant_id = ? AND claim_id = ? AND id = ?", tenantID, claimID, id).For("UPDATE"), errChallengeNotFound)
}

// UpdateChallenge never moves a challenge to another claim.
func (r claimRepo) UpdateChallenge(ctx context.Context, c claim.Challenge) error {
	m := claimChallengeFromDomain(c)
	res, err := r.db.NewUpdate().Model(&m).WherePK().Where("claim_id = ?", c.ClaimID).Exec(ctx)
	return oneRowAffected(res, err, errChallengeNotFound)
}

// CountChallengesSince needs one of the two hashes: an empty hash would count every challenge
// sent without one, which budgets nothing.
//
// It counts across claims, so across tenants: on Citus it asks every shard (a claim redemption's
// budget, at redemption pace).
func (r claimRepo) CountChallengesSince(ctx context.Context, phoneHash, ipHash string, since time.Time) (int, error) {
	column, value := "phone_hash", phoneHash
	if phoneHash == "" {
		column, value = "ip_hash", ipHash
	}
	if value == "" {
		return 0, errors.New("postgres: CountChallengesSince needs a phone hash or an IP hash")
	}
	n, err := r.db.NewSelect().Model((*claimChallengeModel)(nil)).
		Where("? = ? AND created_at >= ?", bun.Ident(column), value, since.UTC()).Count(ctx)
	return int(n), err
}

func (r claimRepo) RecordEscrowEvent(ctx context.Context, tenantID string, chainID int64, txHash string, logIndex uint, claimID string, kind claim.EventKind, at time.Time) (bool, error) {
	if uint64(logIndex) > math.MaxInt64 {
		return false, fmt.Errorf("postgres: escrow log index %d out of range", logIndex)
	}
	res, err := r.db.NewRaw(`INSERT INTO offramp_escrow_events (tenant_id, chain_id, tx_hash, log_index, claim_id, kind, recorded_at)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (tenant_id, chain_id, tx_hash, log_index) DO NOTHING`,
		tenantID, chainID, txHash, int64(logIndex), claimID, string(kind), at.UTC()).Exec(ctx)
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	return n == 1, err
}

// DeleteEscrowEvent asks every shard (on Citus): a reorg names the log, not its claim, and it
// is rare enough not to need a lookup row per recorded log.
func (r claimRepo) DeleteEscrowEvent(ctx context.Context, chainID int64, txHash string, logIndex uint) (string, claim.EventKind, bool, error) {
	if uint64(logIndex) > math.MaxInt64 {
		return "", "", false, nil // never recorded: RecordEscrowEvent refuses it
	}
	var rows []struct {
		ClaimID string `bun:"claim_id"`
		Kind    string `bun:"kind"`
	}
	err := r.db.NewRaw(`DELETE FROM offramp_escrow_events WHERE chain_id = ? AND tx_hash = ? AND log_index = ?
		RETURNING claim_id, kind`, chainID, txHash, int64(logIndex)).Scan(ctx, &rows)
	if err != nil || len(rows) == 0 {
		return "", "", false, err
	}
	return rows[0].ClaimID, claim.EventKind(rows[0].Kind), true, nil
}

// LockEscrowCursor inserts the row at block 0 unless it exists, then locks it. A concurrent
// creator's INSERT waits on the first one's uncommitted key and then does nothing, so both
// end up locking the same single row, one after the other.
func (r claimRepo) LockEscrowCursor(ctx context.Context, env core.Environment, chainID int64, now time.Time) (ports.ChainCursor, error) {
	if _, err := r.db.ExecContext(ctx, `INSERT INTO offramp_escrow_cursors (environment, chain_id, next_block, updated_at)
		VALUES (?, ?, 0, ?) ON CONFLICT (environment, chain_id) DO NOTHING`, string(env), chainID, now.UTC()); err != nil {
		return ports.ChainCursor{}, err
	}
	var row chainCursorRow
	err := r.db.NewRaw(`SELECT environment, chain_id, next_block, updated_at FROM offramp_escrow_cursors
		WHERE environment = ? AND chain_id = ? FOR UPDATE`, string(env), chainID).Scan(ctx, &row)
	if err != nil {
		return ports.ChainCursor{}, err
	}
	return row.domain()
}

func (r claimRepo) SaveEscrowCursor(ctx context.Context, c ports.ChainCursor) error {
	if c.NextBlock > math.MaxInt64 {
		return fmt.Errorf("postgres: escrow cursor block %d out of range", c.NextBlock)
	}
	res, err := r.db.ExecContext(ctx, `UPDATE offramp_escrow_cursors SET next_block = ?, updated_at = ?
		WHERE environment = ? AND chain_id = ?`, int64(c.NextBlock), c.UpdatedAt.UTC(), string(c.Environment), c.ChainID)
	if err != nil {
		return err
	}
	if n, err := res.RowsAffected(); err != nil || n != 1 {
		return fmt.Errorf("postgres: escrow cursor %s/%d not saved (%d rows, %v)", c.Environment, c.ChainID, n, err)
	}
	return nil
}

// oneRowAffected turns an update that touched no row into notFound.
func oneRowAffected(res sql.Result, err error, notFound error) error {
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n != 1 {
		return notFound
	}
	return nil
}
