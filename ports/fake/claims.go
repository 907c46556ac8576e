package fake

import (
	"context"
	"errors"
	"math/big"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/ports"
)

// claimTables hold claims, links (by token hash), phone challenges, the escrow events already
// applied and the escrow indexer's cursors.
type claimTables struct {
	claims     table[claim.Claim]
	links      table[claim.Link]
	challenges table[claim.Challenge]
	events     map[string]escrowEvent // chain|tx|index
	cursors    map[string]ports.ChainCursor
}

type escrowEvent struct {
	claimID string
	kind    claim.EventKind
}

func newClaimTables() claimTables {
	return claimTables{claims: newTable[claim.Claim](), links: newTable[claim.Link](), challenges: newTable[claim.Challenge](),
		events: map[string]escrowEvent{}, cursors: map[string]ports.ChainCursor{}}
}

func (t claimTables) clone() claimTables {
	return claimTables{claims: t.claims.clone(), links: t.links.clone(), challenges: t.challenges.clone(),
		events: copyOf(t.events), cursors: copyOf(t.cursors)}
}

type claimRepo struct{ s *Store }

var _ ports.ClaimRepo = claimRepo{}

var (
	errClaimNotFound     = core.E(claim.CodeClaimNotFound, "claim not found")
	errClaimLinkNotFound = core.E(claim.CodeClaimNotFound, "claim link not found")
	errChallengeNotFound = core.E(claim.CodeChallengeNotFound, "phone challenge not found for this claim")
)

func (r claimRepo) t() *claimTables { return &r.s.state.claims }

// CreateClaim refuses a second claim for one payment, as the unique index does.
func (r claimRepo) CreateClaim(_ context.Context, c claim.Claim) error {
	if len(r.t().claims.filter(func(x claim.Claim) bool { return x.PaymentID == c.PaymentID }, false)) > 0 {
		return core.E(core.CodeInvalidState, "off-ramp payment %s already has a claim", c.PaymentID)
	}
	c.OnchainID = strings.ToLower(c.OnchainID)
	return r.t().claims.insert(c.ID, c)
}

func (r claimRepo) FindClaimForSender(_ context.Context, env core.Environment, senderTenantID, id string) (claim.Claim, error) {
	c, ok := r.t().claims.rows[id]
	if !ok || c.Environment != env || c.SenderTenantID != senderTenantID {
		return claim.Claim{}, errClaimNotFound
	}
	return c, nil
}

func (r claimRepo) LockClaim(_ context.Context, id string) (claim.Claim, error) {
	c, ok := r.t().claims.rows[id]
	if !ok {
		return claim.Claim{}, errClaimNotFound
	}
	return c, nil
}

func (r claimRepo) LockClaimByOnchainID(_ context.Context, env core.Environment, chainID int64, onchainID string) (claim.Claim, error) {
	rows := r.t().claims.filter(func(c claim.Claim) bool {
		return c.Environment == env && c.ChainID == chainID && c.OnchainID == strings.ToLower(onchainID)
	}, false)
	if len(rows) == 0 {
		return claim.Claim{}, errClaimNotFound
	}
	return rows[0], nil
}

func (r claimRepo) UpdateClaim(_ context.Context, c claim.Claim) error {
	if _, ok := r.t().claims.rows[c.ID]; !ok {
		return errClaimNotFound
	}
	c.OnchainID = strings.ToLower(c.OnchainID)
	r.t().claims.rows[c.ID] = c
	return nil
}

// DueClaimIDs: OPEN claims expired at now, LOCKED ones expired at now - grace, by expiry.
func (r claimRepo) DueClaimIDs(_ context.Context, now time.Time, grace time.Duration, limit int) ([]string, error) {
	rows := r.t().claims.filter(func(c claim.Claim) bool {
		return (c.Status == claim.StatusOpen && !c.ExpiresAt.After(now)) || (c.Status == claim.StatusLocked && !c.ExpiresAt.After(now.Add(-grace)))
	}, false)
	sort.SliceStable(rows, func(i, j int) bool {
		if !rows[i].ExpiresAt.Equal(rows[j].ExpiresAt) {
			return rows[i].ExpiresAt.Before(rows[j].ExpiresAt)
		}
		return rows[i].ID < rows[j].ID
	})
	rows, _ = page(rows, ports.Page{Take: limit})
	out := make([]string, len(rows))
	for i, c := range rows {
		out[i] = c.ID
	}
	return out, nil
}

func (r claimRepo) CreateLink(_ context.Context, l claim.Link) error {
	return r.t().links.insert(l.TokenHash, l)
}

func (r claimRepo) SupersedeLinks(_ context.Context, tenantID, claimID string, at time.Time) error {
	for _, l := range r.t().links.filter(func(l claim.Link) bool {
		return l.TenantID == tenantID && l.ClaimID == claimID && l.SupersededAt == nil && l.UsedAt == nil
	}, false) {
		l.SupersededAt = &at
		r.t().links.rows[l.TokenHash] = l
	}
	return nil
}

func (r claimRepo) LockLinkByTokenHash(_ context.Context, tokenHash string) (claim.Link, error) {
	l, ok := r.t().links.rows[tokenHash]
	if !ok {
		return claim.Link{}, errClaimLinkNotFound
	}
	return l, nil
}

func (r claimRepo) UpdateLink(_ context.Context, l claim.Link) error {
	if _, ok := r.t().links.rows[l.TokenHash]; !ok {
		return errClaimLinkNotFound
	}
	r.t().links.rows[l.TokenHash] = l
	return nil
}

func (r claimRepo) CreateChallenge(_ context.Context, c claim.Challenge) error {
	return r.t().challenges.insert(c.ID, c)
}

func (r claimRepo) LockChallenge(_ context.Context, tenantID, claimID, id string) (claim.Challenge, error) {
	c, ok := r.t().challenges.rows[id]
	if !ok || c.ClaimID != claimID || c.TenantID != tenantID {
		return claim.Challenge{}, errChallengeNotFound
	}
	return c, nil
}

func (r claimRepo) UpdateChallenge(_ context.Context, c claim.Challenge) error {
	stored, ok := r.t().challenges.rows[c.ID]
	if !ok || stored.ClaimID != c.ClaimID {
		return errChallengeNotFound
	}
	r.t().challenges.rows[c.ID] = c
	return nil
}

func (r claimRepo) CountChallengesSince(_ context.Context, phoneHash, ipHash string, since time.Time) (int, error) {
	if phoneHash == "" && ipHash == "" {
		return 0, errors.New("fake: CountChallengesSince needs a phone hash or an IP hash")
	}
	return len(r.t().challenges.filter(func(c claim.Challenge) bool {
		match := c.PhoneHash == phoneHash
		if phoneHash == "" {
			match = c.IPHash == ipHash
		}
		return match && !c.CreatedAt.Before(since)
	}, false)), nil
}

func escrowEventKey(chainID int64, txHash string, logIndex uint) string {
	return strconv.FormatInt(chainID, 10) + "|" + strings.ToLower(txHash) + "|" + strconv.FormatUint(uint64(logIndex), 10)
}

func (r claimRepo) DeleteEscrowEvent(_ context.Context, chainID int64, txHash string, logIndex uint) (string, claim.EventKind, bool, error) {
	key := escrowEventKey(chainID, txHash, logIndex)
	e, ok := r.t().events[key]
	if !ok {
		return "", "", false, nil
	}
	delete(r.t().events, key)
	return e.claimID, e.kind, true, nil
}

func (r claimRepo) RecordEscrowEvent(_ context.Context, _ string, chainID int64, txHash string, logIndex uint, claimID string, kind claim.EventKind, _ time.Time) (bool, error) {
	key := escrowEventKey(chainID, txHash, logIndex)
	if _, ok := r.t().events[key]; ok {
		return false, nil
	}
	r.t().events[key] = escrowEvent{claimID: claimID, kind: kind}
	return true, nil
}

func (r claimRepo) LockEscrowCursor(_ context.Context, env core.Environment, chainID int64, now time.Time) (ports.ChainCursor, error) {
	key := string(env) + "|" + strconv.FormatInt(chainID, 10)
	c, ok := r.t().cursors[key]
	if !ok {
		c = ports.ChainCursor{Environment: env, ChainID: chainID, UpdatedAt: now}
		r.t().cursors[key] = c
	}
	return c, nil
}

func (r claimRepo) SaveEscrowCursor(_ context.Context, c ports.ChainCursor) error {
	r.t().cursors[string(c.Environment)+"|"+strconv.FormatInt(c.ChainID, 10)] = c
	return nil
}

// Claim returns a stored claim by id, for assertions.
func (s *Store) Claim(id string) (claim.Claim, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	c, ok := s.state.claims.claims.rows[id]
	return c, ok
}

// ClaimEscrow is an in-memory claim-escrow contract: claims move NONE → FUNDED → LOCKED →
// RELEASED, or to REFUNDED after expiry (plus the grace period once locked), or CANCELED
// before funding; every transition emits a log in order, and a call whose effect is already
// on record sends nothing (zero hash), as the adapter's retries do. It keeps no token
// balances: the fake chain's USDC is not moved.
type ClaimEscrow struct {
	mu      sync.Mutex
	address common.Address
	grace   time.Duration
	now     func() time.Time
	claims  map[[32]byte]ports.EscrowClaim
	logs    []ports.EscrowLog
}

var _ ports.ClaimEscrow = (*ClaimEscrow)(nil)

// NewClaimEscrow returns an escrow whose clock is now and grace period grace.
func NewClaimEscrow(grace time.Duration, now func() time.Time) *ClaimEscrow {
	return &ClaimEscrow{address: common.HexToAddress("0x00000000000000000000000000000000000e5c40"), grace: grace, now: now,
		claims: map[[32]byte]ports.EscrowClaim{}}
}

func (e *ClaimEscrow) ClaimEscrowAddress() common.Address { return e.address }
func (e *ClaimEscrow) SettlementAddress() common.Address {
	return common.HexToAddress("0x00000000000000000000000000000000000005e7")
}
func (e *ClaimEscrow) ClaimGracePeriod() time.Duration { return e.grace }

// emit records a transition and its log. Callers hold mu.
func (e *ClaimEscrow) emit(id [32]byte, kind claim.EventKind, c ports.EscrowClaim, l ports.EscrowLog) common.Hash {
	e.claims[id] = c
	n := len(e.logs)
	l.Kind, l.ClaimID, l.LogIndex, l.BlockNumber = kind, id, 0, uint64(n+1)
	l.TxHash = crypto.Keccak256Hash([]byte("escrow"), id[:], []byte(kind), big.NewInt(int64(n)).Bytes())
	l.BlockHash = crypto.Keccak256Hash(l.TxHash[:])
	e.logs = append(e.logs, l)
	return l.TxHash
}

func (e *ClaimEscrow) FundClaim(_ context.Context, id [32]byte, amount *big.Int, expiresAt time.Time, metadataHash [32]byte) (common.Hash, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	switch c := e.claims[id]; c.State {
	case "", ports.EscrowNone:
	case ports.EscrowCanceled:
		return common.Hash{}, &ports.RevertError{Reason: "CE:canceled"}
	default:
		return common.Hash{}, nil
	}
	if !e.now().Before(expiresAt) {
		return common.Hash{}, &ports.RevertError{Reason: "CE:expired"}
	}
	c := ports.EscrowClaim{State: ports.EscrowFunded, AmountBaseUnits: new(big.Int).Set(amount), ExpiresAt: expiresAt, MetadataHash: metadataHash}
	return e.emit(id, claim.EventFunded, c, ports.EscrowLog{Amount: c.AmountBaseUnits, MetadataHash: metadataHash, ExpiresAt: expiresAt}), nil
}

func (e *ClaimEscrow) LockClaim(_ context.Context, id [32]byte) (common.Hash, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.claims[id]
	switch c.State {
	case ports.EscrowLocked, ports.EscrowReleased:
		return common.Hash{}, nil
	case ports.EscrowFunded:
	default:
		return common.Hash{}, &ports.RevertError{Reason: "CE:state"}
	}
	c.State = ports.EscrowLocked
	return e.emit(id, claim.EventLocked, c, ports.EscrowLog{}), nil
}

func (e *ClaimEscrow) ReleaseClaim(_ context.Context, id [32]byte, to common.Address, decisionHash [32]byte) (common.Hash, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.claims[id]
	switch c.State {
	case ports.EscrowReleased:
		return common.Hash{}, nil
	case ports.EscrowFunded, ports.EscrowLocked:
	default:
		return common.Hash{}, &ports.RevertError{Reason: "CE:state"}
	}
	c.State = ports.EscrowReleased
	return e.emit(id, claim.EventReleased, c, ports.EscrowLog{Amount: c.AmountBaseUnits, To: to, DecisionHash: decisionHash}), nil
}

func (e *ClaimEscrow) ExpireClaimNow(_ context.Context, id [32]byte) (common.Hash, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.claims[id]
	now := e.now()
	if c.State != ports.EscrowFunded || !c.ExpiresAt.After(now) {
		return common.Hash{}, nil
	}
	c.ExpiresAt = now
	return e.emit(id, claim.EventExpiryShortened, c, ports.EscrowLog{ExpiresAt: now}), nil
}

func (e *ClaimEscrow) RefundClaim(_ context.Context, id [32]byte) (common.Hash, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.claims[id]
	due := c.ExpiresAt
	switch c.State {
	case ports.EscrowRefunded:
		return common.Hash{}, nil
	case ports.EscrowLocked:
		due = due.Add(e.grace)
	case ports.EscrowFunded:
	default:
		return common.Hash{}, &ports.RevertError{Reason: "CE:state"}
	}
	if e.now().Before(due) {
		return common.Hash{}, &ports.RevertError{Reason: "CE:not-refundable"}
	}
	c.State = ports.EscrowRefunded
	return e.emit(id, claim.EventRefunded, c, ports.EscrowLog{Amount: c.AmountBaseUnits, To: e.SettlementAddress()}), nil
}

func (e *ClaimEscrow) CancelClaim(_ context.Context, id [32]byte) (common.Hash, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.claims[id]
	switch c.State {
	case ports.EscrowCanceled:
		return common.Hash{}, nil
	case "", ports.EscrowNone:
	default:
		return common.Hash{}, &ports.RevertError{Reason: "CE:state"}
	}
	c.State = ports.EscrowCanceled
	return e.emit(id, claim.EventCanceled, c, ports.EscrowLog{}), nil
}

func (e *ClaimEscrow) EscrowClaim(_ context.Context, id [32]byte) (ports.EscrowClaim, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c, ok := e.claims[id]
	if !ok {
		return ports.EscrowClaim{State: ports.EscrowNone}, nil
	}
	return c, nil
}

// ClaimEscrowLogs returns the logs of blocks [fromBlock, toBlock]; each transition is its own
// block, numbered from 1.
func (e *ClaimEscrow) ClaimEscrowLogs(_ context.Context, fromBlock, toBlock uint64) ([]ports.EscrowLog, error) {
	if err := ports.CheckLogRange(fromBlock, toBlock, 0); err != nil {
		return nil, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []ports.EscrowLog
	for _, l := range e.logs {
		if l.BlockNumber >= fromBlock && l.BlockNumber <= toBlock {
			out = append(out, l)
		}
	}
	return out, nil
}
