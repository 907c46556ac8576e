package ports

import (
	"context"
	"math/big"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
)

// ClaimRepo stores pending claims, their links, phone challenges, the escrow events already
// applied and the escrow indexer's cursor.
type ClaimRepo interface {
	CreateClaim(ctx context.Context, c claim.Claim) error
	// FindClaimForSender returns a claim the tenant sent. Not found (or another tenant's):
	// CLAIM_NOT_FOUND.
	FindClaimForSender(ctx context.Context, env core.Environment, senderTenantID, id string) (claim.Claim, error)
	// LockClaim locks a claim's row by id (the adapter finds its sender's tenant through the
	// id's lookup row). Not found: CLAIM_NOT_FOUND.
	LockClaim(ctx context.Context, id string) (claim.Claim, error)
	// LockClaimByOnchainID locks the claim of an escrow id on one chain. Not found:
	// CLAIM_NOT_FOUND (an escrow event of a claim this deployment does not know).
	LockClaimByOnchainID(ctx context.Context, env core.Environment, chainID int64, onchainID string) (claim.Claim, error)
	UpdateClaim(ctx context.Context, c claim.Claim) error
	// DueClaimIDs lists claims an expiry pass must look at: OPEN claims whose expiresAt is
	// at or before now, and LOCKED claims whose expiresAt+grace is at or before now, oldest
	// first, at most limit.
	DueClaimIDs(ctx context.Context, now time.Time, grace time.Duration, limit int) ([]string, error)

	CreateLink(ctx context.Context, l claim.Link) error
	// SupersedeLinks marks every live link of a claim superseded (a resend's fresh link).
	SupersedeLinks(ctx context.Context, tenantID, claimID string, at time.Time) error
	// LockLinkByTokenHash locks a link by its token's sha256, before any tenant is known (the
	// adapter reads the hash's lookup row). Not found: CLAIM_NOT_FOUND.
	LockLinkByTokenHash(ctx context.Context, tokenHash string) (claim.Link, error)
	UpdateLink(ctx context.Context, l claim.Link) error

	CreateChallenge(ctx context.Context, c claim.Challenge) error
	// LockChallenge locks a challenge of a claim. Not found (or another claim's):
	// CLAIM_CHALLENGE_NOT_FOUND.
	LockChallenge(ctx context.Context, tenantID, claimID, id string) (claim.Challenge, error)
	UpdateChallenge(ctx context.Context, c claim.Challenge) error
	// CountChallengesSince counts challenges created at or after since for a phone hash, or
	// (when ipHash is set instead) for an IP hash, across claims.
	CountChallengesSince(ctx context.Context, phoneHash, ipHash string, since time.Time) (int, error)

	// RecordEscrowEvent stores an escrow log's (chain, tx hash, log index) once: false when it
	// was already applied (a re-delivered log).
	// DeleteEscrowEvent forgets a recorded escrow log (a reorg dropped its block) and returns
	// its claim and kind; found=false when it was not recorded.
	DeleteEscrowEvent(ctx context.Context, chainID int64, txHash string, logIndex uint) (claimID string, kind claim.EventKind, found bool, err error)
	RecordEscrowEvent(ctx context.Context, tenantID string, chainID int64, txHash string, logIndex uint, claimID string, kind claim.EventKind, at time.Time) (bool, error)
	// LockEscrowCursor / SaveEscrowCursor keep the escrow indexer's position per environment
	// and chain (created at block 0 when missing), separate from the ledger mirror's cursor.
	LockEscrowCursor(ctx context.Context, env core.Environment, chainID int64, now time.Time) (ChainCursor, error)
	SaveEscrowCursor(ctx context.Context, c ChainCursor) error
}

// ClaimEscrow is the project's claim-escrow contract on one chain (contracts/src/ClaimEscrow.sol).
// The adapter's relayer is the contract's operator: it funds claims from its own USDC (minting
// TestUSDC first on a dev chain), and releases and refunds go to the service's settlement
// address. Like Chain, methods submit and return the transaction hash without waiting, never
// inside a database transaction. Every sending method is safe to retry: when the claim's
// on-chain state already reflects the effect it sends nothing and returns the zero hash; when
// the contract would refuse it returns *RevertError with the contract's reason.
type ClaimEscrow interface {
	// ClaimEscrowAddress is the contract's address.
	ClaimEscrowAddress() common.Address
	// SettlementAddress receives releases and refunds: the service's own account on the chain.
	SettlementAddress() common.Address
	// ClaimGracePeriod is the contract's grace period after expiry before a LOCKED claim
	// becomes refundable.
	ClaimGracePeriod() time.Duration

	// FundClaim moves amount into escrow under id, refundable to the settlement address from
	// expiresAt, and commits metadataHash (fund; reverts once expiresAt has passed on chain).
	FundClaim(ctx context.Context, id [32]byte, amount *big.Int, expiresAt time.Time, metadataHash [32]byte) (common.Hash, error)
	// LockClaim marks a funded claim as being paid out to its redeemer (lock), so expiry alone
	// no longer refunds it: only after the grace period.
	LockClaim(ctx context.Context, id [32]byte) (common.Hash, error)
	// ReleaseClaim pays a funded or locked claim to to, committing decisionHash (release).
	ReleaseClaim(ctx context.Context, id [32]byte, to common.Address, decisionHash [32]byte) (common.Hash, error)
	// ExpireClaimNow brings a funded, unlocked claim's on-chain expiry forward to the current
	// block (the service expired it early, e.g. the sandbox helper); never later.
	ExpireClaimNow(ctx context.Context, id [32]byte) (common.Hash, error)
	// RefundClaim returns a claim to the settlement address: a funded claim from expiry, a
	// locked one from expiry plus the grace period (refund).
	RefundClaim(ctx context.Context, id [32]byte) (common.Hash, error)
	// CancelClaim tombstones an id that was never funded, so a late fund reverts (cancel).
	CancelClaim(ctx context.Context, id [32]byte) (common.Hash, error)
	// EscrowClaim reads the contract's record of id.
	EscrowClaim(ctx context.Context, id [32]byte) (EscrowClaim, error)
	// ClaimEscrowLogs returns the contract's events in blocks [fromBlock, toBlock] in chain
	// order (same range bounds as Chain.USDCTransferLogs).
	ClaimEscrowLogs(ctx context.Context, fromBlock, toBlock uint64) ([]EscrowLog, error)
}

// EscrowState is a claim's state in the contract.
type EscrowState string

const (
	EscrowNone     EscrowState = "NONE"
	EscrowFunded   EscrowState = "FUNDED"
	EscrowLocked   EscrowState = "LOCKED"
	EscrowReleased EscrowState = "RELEASED"
	EscrowRefunded EscrowState = "REFUNDED"
	EscrowCanceled EscrowState = "CANCELED"
)

// EscrowClaim is the contract's record of one claim.
type EscrowClaim struct {
	State           EscrowState
	AmountBaseUnits *big.Int
	ExpiresAt       time.Time
	MetadataHash    [32]byte
}

// EscrowLog is one decoded escrow event. (TxHash, LogIndex) identifies it uniquely.
type EscrowLog struct {
	Kind         claim.EventKind
	ClaimID      [32]byte
	TxHash       common.Hash
	LogIndex     uint
	BlockNumber  uint64
	BlockHash    common.Hash
	Amount       *big.Int       // FUNDED, RELEASED, REFUNDED
	To           common.Address // RELEASED, REFUNDED
	DecisionHash [32]byte       // RELEASED
	MetadataHash [32]byte       // FUNDED
	ExpiresAt    time.Time      // FUNDED, EXPIRY_SHORTENED
}
