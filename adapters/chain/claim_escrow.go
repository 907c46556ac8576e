package chain

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/core/types"

	"github.com/corridorhq/corridor/adapters/chain/bindings"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/ports"
)

var _ ports.ClaimEscrow = (*Adapter)(nil)

// ClaimEscrow is the claim-escrow contract's side of the adapter (ports.ClaimEscrow): funding,
// locking, releasing, refunding and cancelling claims, reading them, and their events.
type ClaimEscrow struct {
	*reader
	relay  *relayer
	escrow *bindings.ClaimEscrow
	// escrowConfig is read from the contract at start-up (zero without an escrow); fundMu
	// keeps one FundClaim at a time between reading the relayer's USDC and spending it, and
	// guards lastFund, the latest fund transaction sent (see prepareFunding).
	escrowConfig escrowConfig
	fundMu       sync.Mutex
	lastFund     common.Hash
}

// ErrClaimEscrowNotConfigured is every escrow method's answer on a chain configured without a
// claimEscrow address (a public chain nobody deployed the contract on yet).
var ErrClaimEscrowNotConfigured = errors.New("chain: the claim escrow is not configured on this chain (no claimEscrow address)")

// fundingStepTimeout bounds the wait for the mint and the approval that come before a fund:
// the fund is estimated against the latest block, so they must be mined first.
const fundingStepTimeout = 2 * time.Minute

// escrowConfig is what the adapter reads from the escrow contract once, at start-up.
type escrowConfig struct {
	settlement  common.Address
	gracePeriod time.Duration
}

// escrowStates maps the contract's State enum (its order in ClaimEscrow.sol) to the port's.
var escrowStates = []ports.EscrowState{
	ports.EscrowNone, ports.EscrowFunded, ports.EscrowLocked,
	ports.EscrowReleased, ports.EscrowRefunded, ports.EscrowCanceled,
}

var (
	escrowABI        = bindings.NewClaimEscrow().GetABI()
	escrowEventKinds = map[common.Hash]claim.EventKind{
		escrowABI.Events["ClaimFunded"].ID:          claim.EventFunded,
		escrowABI.Events["ClaimLocked"].ID:          claim.EventLocked,
		escrowABI.Events["ClaimReleased"].ID:        claim.EventReleased,
		escrowABI.Events["ClaimRefunded"].ID:        claim.EventRefunded,
		escrowABI.Events["ClaimCanceled"].ID:        claim.EventCanceled,
		escrowABI.Events["ClaimExpiryShortened"].ID: claim.EventExpiryShortened,
	}
)

// errEffectDone tells sendEscrow that the claim already reflects the step: nothing is sent.
var errEffectDone = errors.New("chain: the escrow already reflects this step")

// readEscrowConfig checks the configured escrow at start-up: it has code, escrows this USDC and
// is operated by this relayer (otherwise every sending method would revert with CE:operator).
// Without an address it returns the zero config and the methods say "not configured".
func (a *ClaimEscrow) readEscrowConfig(ctx context.Context) (escrowConfig, error) {
	address := a.addrs.ClaimEscrow
	if address == (common.Address{}) {
		return escrowConfig{}, nil
	}
	if deployed, err := a.IsDeployed(ctx, address); err != nil {
		return escrowConfig{}, err
	} else if !deployed {
		return escrowConfig{}, fmt.Errorf("chain: no ClaimEscrow contract at %s on chain %d", address.Hex(), a.chainID)
	}
	token, err := callUnpack(ctx, a, address, a.escrow.PackToken(), a.escrow.UnpackToken)
	if err != nil {
		return escrowConfig{}, err
	}
	operator, err := callUnpack(ctx, a, address, a.escrow.PackOperator(), a.escrow.UnpackOperator)
	if err != nil {
		return escrowConfig{}, err
	}
	settlement, err := callUnpack(ctx, a, address, a.escrow.PackSettlement(), a.escrow.UnpackSettlement)
	if err != nil {
		return escrowConfig{}, err
	}
	graceSeconds, err := callUnpack(ctx, a, address, a.escrow.PackGracePeriod(), a.escrow.UnpackGracePeriod)
	if err != nil {
		return escrowConfig{}, err
	}
	switch {
	case token != a.addrs.USDC:
		return escrowConfig{}, fmt.Errorf("chain: the ClaimEscrow at %s escrows token %s, not the configured USDC %s", address.Hex(), token.Hex(), a.addrs.USDC.Hex())
	case operator != a.relay.from:
		return escrowConfig{}, fmt.Errorf("chain: the ClaimEscrow at %s is operated by %s, not by the relayer %s", address.Hex(), operator.Hex(), a.relay.from.Hex())
	case graceSeconds > uint64(math.MaxInt64/int64(time.Second)):
		return escrowConfig{}, fmt.Errorf("chain: the ClaimEscrow at %s has a grace period of %d s, beyond a time.Duration", address.Hex(), graceSeconds)
	}
	return escrowConfig{settlement: settlement, gracePeriod: time.Duration(graceSeconds) * time.Second}, nil
}

// callUnpack calls a view function and decodes its answer.
func callUnpack[T any](ctx context.Context, a caller, to common.Address, data []byte, unpack func([]byte) (T, error)) (T, error) {
	out, err := a.call(ctx, to, data)
	if err != nil {
		var zero T
		return zero, err
	}
	v, err := unpack(out)
	if err != nil {
		return v, fmt.Errorf("chain: decoding the answer of %s: %w", to.Hex(), err)
	}
	return v, nil
}

func (a *ClaimEscrow) escrowConfigured() bool { return a.addrs.ClaimEscrow != (common.Address{}) }

// ClaimEscrowAddress implements ports.ClaimEscrow: the zero address when not configured.
func (a *ClaimEscrow) ClaimEscrowAddress() common.Address { return a.addrs.ClaimEscrow }

// SettlementAddress implements ports.ClaimEscrow: the escrow's immutable refund address (the
// relayer on chains Corridor deploys itself), the zero address when not configured.
func (a *ClaimEscrow) SettlementAddress() common.Address { return a.escrowConfig.settlement }

// ClaimGracePeriod implements ports.ClaimEscrow. Without an escrow it is the default a
// deployment would get, so a caller never treats a lock as refundable sooner than policy.
func (a *ClaimEscrow) ClaimGracePeriod() time.Duration {
	if !a.escrowConfigured() {
		return claim.DefaultGracePeriod
	}
	return a.escrowConfig.gracePeriod
}

// EscrowClaim implements ports.ClaimEscrow.
func (a *ClaimEscrow) EscrowClaim(ctx context.Context, id [32]byte) (ports.EscrowClaim, error) {
	if !a.escrowConfigured() {
		return ports.EscrowClaim{}, ErrClaimEscrowNotConfigured
	}
	out, err := callUnpack(ctx, a, a.addrs.ClaimEscrow, a.escrow.PackClaims(id), a.escrow.UnpackClaims)
	if err != nil {
		return ports.EscrowClaim{}, err
	}
	if int(out.State) >= len(escrowStates) || out.ExpiresAt > math.MaxInt64 {
		return ports.EscrowClaim{}, fmt.Errorf("chain: escrow claim %s has state %d and expiry %d, which this adapter does not know", hexutil.Encode(id[:]), out.State, out.ExpiresAt)
	}
	c := ports.EscrowClaim{State: escrowStates[out.State], AmountBaseUnits: out.Amount, MetadataHash: out.MetadataHash}
	if c.State != ports.EscrowNone && c.State != ports.EscrowCanceled {
		c.ExpiresAt = unixTime(out.ExpiresAt)
	}
	return c, nil
}

// FundClaim implements ports.ClaimEscrow. The relayer pays from its own USDC: where it is
// TestUSDC's minter (the dev and simulated chains) it first mints whatever it lacks; elsewhere
// it must already hold the amount (an error says so, nothing is sent). It approves the escrow
// once for an unlimited amount. A claim already funded with the same amount and metadata hash
// is a retry (zero hash); with different ones the contract would refuse (CE:state). On-chain
// expiry is whole seconds: expiresAt is truncated, never rounded later.
func (a *ClaimEscrow) FundClaim(ctx context.Context, id [32]byte, amount *big.Int, expiresAt time.Time, metadataHash [32]byte) (common.Hash, error) {
	if !a.escrowConfigured() {
		return common.Hash{}, ErrClaimEscrowNotConfigured
	}
	if err := positive(amount); err != nil {
		return common.Hash{}, err
	}
	if expiresAt.Unix() <= 0 {
		return common.Hash{}, fmt.Errorf("chain: claim expiry %s is not after 1970", expiresAt)
	}
	expiresAtSeconds := uint64(expiresAt.Unix()) //nolint:gosec // checked positive just above
	a.fundMu.Lock()
	defer a.fundMu.Unlock()
	done := func(_ context.Context, c ports.EscrowClaim) (bool, error) {
		switch c.State {
		case ports.EscrowNone, ports.EscrowCanceled:
			return false, nil // Canceled: the send's estimate reports the contract's CE:state.
		}
		if c.AmountBaseUnits.Cmp(amount) != 0 || c.MetadataHash != metadataHash {
			return false, &ports.RevertError{Reason: "CE:state", Meaning: fmt.Sprintf(
				"the claim is already %s with %s base units and metadata hash %s", c.State, c.AmountBaseUnits, hexutil.Encode(c.MetadataHash[:]))}
		}
		return true, nil
	}
	current, err := a.EscrowClaim(ctx, id)
	if err != nil {
		return common.Hash{}, err
	}
	if already, err := done(ctx, current); err != nil || already {
		return common.Hash{}, err
	}
	// Only a fund the contract would accept gets the mint and approval; anything else goes
	// straight to the send, whose estimate returns the contract's reason.
	if current.State == ports.EscrowNone {
		head, err := a.client.HeaderByNumber(ctx, nil)
		if err != nil {
			return common.Hash{}, fmt.Errorf("chain: latest header: %w", err)
		}
		if expiresAtSeconds > head.Time {
			if err := a.prepareFunding(ctx, amount); err != nil {
				return common.Hash{}, err
			}
		}
	}
	hash, err := a.sendEscrow(ctx, "fund", id, done, a.escrow.PackFund(id, amount, expiresAtSeconds, metadataHash))
	if hash != (common.Hash{}) {
		a.lastFund = hash
	}
	return hash, err
}

// prepareFunding makes sure the relayer holds amount USDC and has approved the escrow for it,
// each step mined before the fund is estimated. It first lets the previous fund settle: until
// that one is mined the relayer's balance still shows the money it is about to pull, and two
// funds could be sent against one balance. The caller holds fundMu.
func (a *ClaimEscrow) prepareFunding(ctx context.Context, amount *big.Int) error {
	ctx, cancel := context.WithTimeout(ctx, fundingStepTimeout)
	defer cancel()
	if previous := a.lastFund; previous != (common.Hash{}) {
		// Waited for once: a transaction the node dropped must not hold up every later fund.
		// A failed previous fund pulled nothing, so only the wait matters, not its outcome.
		a.lastFund = common.Hash{}
		if _, err := a.relay.waitMined(ctx, previous); err != nil && ctx.Err() != nil {
			return err
		}
	}
	relayer := a.relay.from
	balance, err := a.USDCBalance(ctx, relayer)
	if err != nil {
		return err
	}
	if shortfall := new(big.Int).Sub(amount, balance); shortfall.Sign() > 0 {
		mints, err := relayerMintsUSDC(ctx, a.reader, a.relay.from)
		if err != nil {
			return err
		}
		if !mints {
			return fmt.Errorf("chain: the relayer %s holds %s USDC base units, a claim of %s needs %s more: top up the relayer's USDC",
				relayer.Hex(), balance, amount, shortfall)
		}
		hash, err := a.relay.sendOnce(ctx, "", nil, call{to: &a.addrs.USDC, data: a.usdc.PackMint(relayer, shortfall)})
		if err != nil {
			return fmt.Errorf("chain: minting TestUSDC for a claim: %w", err)
		}
		if _, err := a.relay.waitMined(ctx, hash); err != nil {
			return err
		}
	}
	allowance, err := callUnpack(ctx, a, a.addrs.USDC, a.usdc.PackAllowance(relayer, a.addrs.ClaimEscrow), a.usdc.UnpackAllowance)
	if err != nil {
		return err
	}
	if allowance.Cmp(amount) >= 0 {
		return nil
	}
	unlimited := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	hash, err := a.relay.sendOnce(ctx, "", nil, call{to: &a.addrs.USDC, data: a.usdc.PackApprove(a.addrs.ClaimEscrow, unlimited)})
	if err != nil {
		return fmt.Errorf("chain: approving the claim escrow: %w", err)
	}
	_, err = a.relay.waitMined(ctx, hash)
	return err
}

// LockClaim implements ports.ClaimEscrow. A claim already locked, or already released (the
// lock's purpose is served), is a retry.
func (a *ClaimEscrow) LockClaim(ctx context.Context, id [32]byte) (common.Hash, error) {
	done := func(_ context.Context, c ports.EscrowClaim) (bool, error) {
		return c.State == ports.EscrowLocked || c.State == ports.EscrowReleased, nil
	}
	return a.sendEscrow(ctx, "lock", id, done, a.escrow.PackLock(id))
}

// ReleaseClaim implements ports.ClaimEscrow. A released claim is a retry; the contract keeps no
// recipient, so a retry with another recipient is not detected here (the ClaimReleased event
// has the one that was paid).
func (a *ClaimEscrow) ReleaseClaim(ctx context.Context, id [32]byte, to common.Address, decisionHash [32]byte) (common.Hash, error) {
	done := func(_ context.Context, c ports.EscrowClaim) (bool, error) {
		return c.State == ports.EscrowReleased, nil
	}
	return a.sendEscrow(ctx, "release", id, done, a.escrow.PackRelease(id, to, decisionHash))
}

// ExpireClaimNow implements ports.ClaimEscrow. A funded claim whose expiry is already at or
// before the latest block, or a refunded one, is a retry.
func (a *ClaimEscrow) ExpireClaimNow(ctx context.Context, id [32]byte) (common.Hash, error) {
	done := func(ctx context.Context, c ports.EscrowClaim) (bool, error) {
		switch c.State {
		case ports.EscrowRefunded:
			return true, nil
		case ports.EscrowFunded:
			head, err := a.client.HeaderByNumber(ctx, nil)
			if err != nil {
				return false, fmt.Errorf("chain: latest header: %w", err)
			}
			return c.ExpiresAt.Unix() <= 0 || uint64(c.ExpiresAt.Unix()) <= head.Time, nil //nolint:gosec // a non-positive expiry is already due
		}
		return false, nil
	}
	return a.sendEscrow(ctx, "expire", id, done, a.escrow.PackExpireNow(id))
}

// RefundClaim implements ports.ClaimEscrow. A refunded claim is a retry.
func (a *ClaimEscrow) RefundClaim(ctx context.Context, id [32]byte) (common.Hash, error) {
	done := func(_ context.Context, c ports.EscrowClaim) (bool, error) {
		return c.State == ports.EscrowRefunded, nil
	}
	return a.sendEscrow(ctx, "refund", id, done, a.escrow.PackRefund(id))
}

// CancelClaim implements ports.ClaimEscrow. A canceled claim is a retry.
func (a *ClaimEscrow) CancelClaim(ctx context.Context, id [32]byte) (common.Hash, error) {
	done := func(_ context.Context, c ports.EscrowClaim) (bool, error) {
		return c.State == ports.EscrowCanceled, nil
	}
	return a.sendEscrow(ctx, "cancel", id, done, a.escrow.PackCancel(id))
}

// sendEscrow sends one escrow call unless done reports that the claim already reflects it
// (zero hash, nothing sent). done runs first, and again under the relayer's lock, so
// concurrent retries of one step send at most one transaction; a retry while the first is
// still pending gets the first's hash. A call the contract would refuse comes back as
// *ports.RevertError from the gas estimate, before anything is sent.
func (a *ClaimEscrow) sendEscrow(ctx context.Context, step string, id [32]byte, done func(context.Context, ports.EscrowClaim) (bool, error), data []byte) (common.Hash, error) {
	if !a.escrowConfigured() {
		return common.Hash{}, ErrClaimEscrowNotConfigured
	}
	check := func(ctx context.Context) error {
		c, err := a.EscrowClaim(ctx, id)
		if err != nil {
			return err
		}
		already, err := done(ctx, c)
		if err == nil && already {
			return errEffectDone
		}
		return err
	}
	err := check(ctx)
	if err == nil {
		var hash common.Hash
		key := "escrow:" + step + ":" + hexutil.Encode(id[:])
		hash, err = a.relay.sendOnce(ctx, key, check, call{to: &a.addrs.ClaimEscrow, data: data})
		if err == nil {
			return hash, nil
		}
	}
	if errors.Is(err, errEffectDone) {
		return common.Hash{}, nil
	}
	return common.Hash{}, err
}

// ClaimEscrowLogs implements ports.ClaimEscrow: one query for the six event topics of the
// escrow, decoded and sorted by block and log index. Removed (reorged) logs are dropped.
func (a *ClaimEscrow) ClaimEscrowLogs(ctx context.Context, fromBlock, toBlock uint64) ([]ports.EscrowLog, error) {
	if !a.escrowConfigured() {
		return nil, ErrClaimEscrowNotConfigured
	}
	if err := ports.CheckLogRange(fromBlock, toBlock, 0); err != nil {
		return nil, err
	}
	topics := make([]common.Hash, 0, len(escrowEventKinds))
	for topic := range escrowEventKinds {
		topics = append(topics, topic)
	}
	logs, err := a.client.FilterLogs(ctx, ethereum.FilterQuery{
		FromBlock: new(big.Int).SetUint64(fromBlock), ToBlock: new(big.Int).SetUint64(toBlock),
		Addresses: []common.Address{a.addrs.ClaimEscrow}, Topics: [][]common.Hash{topics},
	})
	if err != nil {
		return nil, fmt.Errorf("chain: escrow logs %d..%d: %w", fromBlock, toBlock, err)
	}
	out := make([]ports.EscrowLog, 0, len(logs))
	for i := range logs {
		if logs[i].Removed {
			continue
		}
		decoded, err := a.decodeEscrowLog(&logs[i])
		if err != nil {
			return nil, fmt.Errorf("chain: escrow log %s/%d: %w", logs[i].TxHash.Hex(), logs[i].Index, err)
		}
		out = append(out, decoded)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].BlockNumber != out[j].BlockNumber {
			return out[i].BlockNumber < out[j].BlockNumber
		}
		return out[i].LogIndex < out[j].LogIndex
	})
	return out, nil
}

func (a *ClaimEscrow) decodeEscrowLog(l *types.Log) (ports.EscrowLog, error) {
	if len(l.Topics) < 2 {
		return ports.EscrowLog{}, errors.New("not an escrow event: too few topics")
	}
	kind, ok := escrowEventKinds[l.Topics[0]]
	if !ok {
		return ports.EscrowLog{}, fmt.Errorf("unknown event topic %s", l.Topics[0].Hex())
	}
	out := ports.EscrowLog{Kind: kind, ClaimID: l.Topics[1], TxHash: l.TxHash, LogIndex: l.Index, BlockNumber: l.BlockNumber, BlockHash: l.BlockHash}
	switch kind {
	case claim.EventFunded:
		e, err := a.escrow.UnpackClaimFundedEvent(l)
		if err != nil {
			return out, err
		}
		out.Amount, out.ExpiresAt, out.MetadataHash = e.Amount, unixTime(e.ExpiresAt), e.MetadataHash
	case claim.EventReleased:
		e, err := a.escrow.UnpackClaimReleasedEvent(l)
		if err != nil {
			return out, err
		}
		out.To, out.Amount, out.DecisionHash = e.To, e.Amount, e.DecisionHash
	case claim.EventRefunded:
		e, err := a.escrow.UnpackClaimRefundedEvent(l)
		if err != nil {
			return out, err
		}
		out.To, out.Amount = e.To, e.Amount
	case claim.EventExpiryShortened:
		e, err := a.escrow.UnpackClaimExpiryShortenedEvent(l)
		if err != nil {
			return out, err
		}
		out.ExpiresAt = unixTime(e.ExpiresAt)
	}
	return out, nil
}

// unixTime is an on-chain timestamp (seconds) as UTC time. Values beyond int64 do not occur:
// the contract only stores expiries that were after the block time and came from a time.Time.
func unixTime(seconds uint64) time.Time {
	if seconds > math.MaxInt64 {
		seconds = math.MaxInt64
	}
	return time.Unix(int64(seconds), 0).UTC()
}
