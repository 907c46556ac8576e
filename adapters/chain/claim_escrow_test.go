package chain

import (
	"context"
	"errors"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/ports"
)

// escrowGrace is the tests' grace period: long enough to tell "after expiry" from "after
// expiry plus grace", moved past with the simulated chain's clock.
const escrowGrace = time.Hour

func newEscrowChain(t *testing.T) *Adapter {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	a, err := NewSimulated(ctx, SimulatedOptions{ClaimGracePeriod: escrowGrace})
	if err != nil {
		t.Fatalf("starting the simulated chain: %v", err)
	}
	t.Cleanup(func() { _ = a.Close() })
	return a
}

func claimID(seed string) [32]byte { return crypto.Keccak256Hash([]byte("claim id " + seed)) }

func hash32(seed string) [32]byte { return crypto.Keccak256Hash([]byte(seed)) }

// chainNow is the latest block's timestamp: the simulated chain runs ahead of the wall clock
// (a block per transaction, one second apart at least) and jumps with AdjustSimulatedTime.
func chainNow(t *testing.T, a *Adapter) time.Time {
	t.Helper()
	head, err := a.client.HeaderByNumber(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	return time.Unix(int64(head.Time), 0).UTC()
}

func wantEscrow(t *testing.T, a *Adapter, id [32]byte, state ports.EscrowState, amount *big.Int) ports.EscrowClaim {
	t.Helper()
	got, err := a.EscrowClaim(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != state || got.AmountBaseUnits.Cmp(amount) != 0 {
		t.Fatalf("escrow claim = %s of %s, want %s of %s", got.State, got.AmountBaseUnits, state, amount)
	}
	return got
}

func wantRevert(t *testing.T, err error, reason string) {
	t.Helper()
	var revert *ports.RevertError
	if !errors.As(err, &revert) || revert.Reason != reason {
		t.Fatalf("err = %v, want a %s revert", err, reason)
	}
}

// wantNoOp asserts a retry: no error, the zero hash, and no transaction sent.
func wantNoOp(t *testing.T, a *Adapter, what string, send func() (common.Hash, error)) {
	t.Helper()
	before := a.relay.nonce
	hash, err := send()
	if err != nil || hash != (common.Hash{}) {
		t.Fatalf("retry of %s = %s, %v; want the zero hash", what, hash.Hex(), err)
	}
	if a.relay.nonce != before {
		t.Fatalf("retry of %s sent a transaction", what)
	}
}

func escrowLogs(t *testing.T, a *Adapter, fromBlock uint64) []ports.EscrowLog {
	t.Helper()
	latest, err := a.LatestBlock(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	logs, err := a.ClaimEscrowLogs(context.Background(), fromBlock, latest)
	if err != nil {
		t.Fatal(err)
	}
	return logs
}

func kindsOf(logs []ports.EscrowLog) string {
	var kinds []string
	for _, l := range logs {
		kinds = append(kinds, string(l.Kind))
	}
	return strings.Join(kinds, ",")
}

func TestClaimEscrow_FundLockRelease(t *testing.T) {
	a := newEscrowChain(t)
	ctx := testContext(t)
	id, metadata, decision := claimID("release"), hash32("metadata"), hash32("decision")
	recipient := common.HexToAddress("0x00000000000000000000000000000000000000c1")
	amount := usdc(25)
	// Sub-second precision is truncated on chain, never rounded later.
	expiresAt := chainNow(t, a).Add(14*24*time.Hour + 700*time.Millisecond)

	if got := a.ClaimGracePeriod(); got != escrowGrace {
		t.Fatalf("grace period = %s, want %s", got, escrowGrace)
	}
	if a.SettlementAddress() != a.RelayerAddress() || a.ClaimEscrowAddress() != a.Addresses().ClaimEscrow {
		t.Fatalf("settlement %s, escrow %s", a.SettlementAddress().Hex(), a.ClaimEscrowAddress().Hex())
	}
	wantEscrow(t, a, id, ports.EscrowNone, new(big.Int))

	hash, err := a.FundClaim(ctx, id, amount, expiresAt, metadata)
	funded := mustSucceed(t, a, hash, err)
	got := wantEscrow(t, a, id, ports.EscrowFunded, amount)
	if !got.ExpiresAt.Equal(expiresAt.Truncate(time.Second)) || got.MetadataHash != metadata {
		t.Fatalf("escrow claim = %+v, want expiry %s and metadata %x", got, expiresAt.Truncate(time.Second), metadata)
	}
	// The relayer minted exactly what it lacked and the escrow pulled it all.
	wantBalance(t, a, a.ClaimEscrowAddress(), amount)
	wantBalance(t, a, a.RelayerAddress(), new(big.Int))
	wantNoOp(t, a, "fund", func() (common.Hash, error) { return a.FundClaim(ctx, id, amount, expiresAt, metadata) })
	_, err = a.FundClaim(ctx, id, usdc(26), expiresAt, metadata)
	wantRevert(t, err, "CE:state")

	hash, err = a.LockClaim(ctx, id)
	mustSucceed(t, a, hash, err)
	wantEscrow(t, a, id, ports.EscrowLocked, amount)
	wantNoOp(t, a, "lock", func() (common.Hash, error) { return a.LockClaim(ctx, id) })
	_, err = a.ExpireClaimNow(ctx, id)
	wantRevert(t, err, "CE:state")

	hash, err = a.ReleaseClaim(ctx, id, recipient, decision)
	mustSucceed(t, a, hash, err)
	wantEscrow(t, a, id, ports.EscrowReleased, amount)
	wantBalance(t, a, recipient, amount)
	wantBalance(t, a, a.ClaimEscrowAddress(), new(big.Int))
	wantNoOp(t, a, "release", func() (common.Hash, error) { return a.ReleaseClaim(ctx, id, recipient, decision) })
	wantNoOp(t, a, "lock after release", func() (common.Hash, error) { return a.LockClaim(ctx, id) })

	// Never both released and refunded, however long one waits.
	if err := a.AdjustSimulatedTime(15*24*time.Hour + escrowGrace); err != nil {
		t.Fatal(err)
	}
	_, err = a.RefundClaim(ctx, id)
	wantRevert(t, err, "CE:state")
	wantBalance(t, a, a.SettlementAddress(), new(big.Int))

	logs := escrowLogs(t, a, funded.BlockNumber)
	if kindsOf(logs) != "FUNDED,LOCKED,RELEASED" {
		t.Fatalf("events %s, want FUNDED,LOCKED,RELEASED", kindsOf(logs))
	}
	fundedLog, releasedLog := logs[0], logs[2]
	if fundedLog.ClaimID != id || fundedLog.Amount.Cmp(amount) != 0 || fundedLog.MetadataHash != metadata ||
		!fundedLog.ExpiresAt.Equal(expiresAt.Truncate(time.Second)) || fundedLog.TxHash != funded.TxHash || fundedLog.BlockNumber != funded.BlockNumber {
		t.Errorf("FUNDED log = %+v", fundedLog)
	}
	if logs[1].ClaimID != id || logs[1].BlockNumber <= fundedLog.BlockNumber {
		t.Errorf("LOCKED log = %+v", logs[1])
	}
	if releasedLog.ClaimID != id || releasedLog.To != recipient || releasedLog.Amount.Cmp(amount) != 0 ||
		releasedLog.DecisionHash != decision || releasedLog.BlockNumber <= logs[1].BlockNumber {
		t.Errorf("RELEASED log = %+v", releasedLog)
	}
}

func TestClaimEscrow_ExpireNowThenRefund(t *testing.T) {
	a := newEscrowChain(t)
	ctx := testContext(t)
	id := claimID("refund")
	amount := usdc(40)
	hash, err := a.FundClaim(ctx, id, amount, chainNow(t, a).Add(24*time.Hour), hash32("metadata"))
	funded := mustSucceed(t, a, hash, err)

	before := a.relay.nonce
	_, err = a.RefundClaim(ctx, id)
	wantRevert(t, err, "CE:notExpired")
	if a.relay.nonce != before {
		t.Fatal("a refused refund was sent")
	}

	hash, err = a.ExpireClaimNow(ctx, id)
	shortened := mustSucceed(t, a, hash, err)
	got := wantEscrow(t, a, id, ports.EscrowFunded, amount)
	if !got.ExpiresAt.After(time.Unix(0, 0)) || got.ExpiresAt.After(chainNow(t, a)) {
		t.Fatalf("expiry %s after expireNow, chain time %s", got.ExpiresAt, chainNow(t, a))
	}
	wantNoOp(t, a, "expireNow", func() (common.Hash, error) { return a.ExpireClaimNow(ctx, id) })
	_, err = a.LockClaim(ctx, id)
	wantRevert(t, err, "CE:expired")

	hash, err = a.RefundClaim(ctx, id)
	refunded := mustSucceed(t, a, hash, err)
	wantEscrow(t, a, id, ports.EscrowRefunded, amount)
	wantBalance(t, a, a.SettlementAddress(), amount)
	wantBalance(t, a, a.ClaimEscrowAddress(), new(big.Int))
	wantNoOp(t, a, "refund", func() (common.Hash, error) { return a.RefundClaim(ctx, id) })
	wantNoOp(t, a, "expireNow after refund", func() (common.Hash, error) { return a.ExpireClaimNow(ctx, id) })
	_, err = a.ReleaseClaim(ctx, id, common.HexToAddress("0xc2"), hash32("decision"))
	wantRevert(t, err, "CE:state")

	logs := escrowLogs(t, a, funded.BlockNumber)
	if kindsOf(logs) != "FUNDED,EXPIRY_SHORTENED,REFUNDED" {
		t.Fatalf("events %s", kindsOf(logs))
	}
	if logs[1].TxHash != shortened.TxHash || !logs[1].ExpiresAt.Equal(got.ExpiresAt) {
		t.Errorf("EXPIRY_SHORTENED log = %+v, want expiry %s", logs[1], got.ExpiresAt)
	}
	if logs[2].TxHash != refunded.TxHash || logs[2].To != a.SettlementAddress() || logs[2].Amount.Cmp(amount) != 0 {
		t.Errorf("REFUNDED log = %+v", logs[2])
	}
}

func TestClaimEscrow_LockedClaimRefundsOnlyAfterGrace(t *testing.T) {
	a := newEscrowChain(t)
	ctx := testContext(t)
	id := claimID("grace")
	amount := usdc(7)
	hash, err := a.FundClaim(ctx, id, amount, chainNow(t, a).Add(time.Minute), hash32("metadata"))
	mustSucceed(t, a, hash, err)
	hash, err = a.LockClaim(ctx, id)
	mustSucceed(t, a, hash, err)

	_, err = a.RefundClaim(ctx, id)
	wantRevert(t, err, "CE:grace")
	if err := a.AdjustSimulatedTime(2 * time.Minute); err != nil {
		t.Fatal(err)
	}
	// Expired, but locked: funds win over expiry until the grace period is over.
	_, err = a.RefundClaim(ctx, id)
	wantRevert(t, err, "CE:grace")
	if err := a.AdjustSimulatedTime(escrowGrace); err != nil {
		t.Fatal(err)
	}
	hash, err = a.RefundClaim(ctx, id)
	mustSucceed(t, a, hash, err)
	wantEscrow(t, a, id, ports.EscrowRefunded, amount)
	wantBalance(t, a, a.SettlementAddress(), amount)
	_, err = a.ReleaseClaim(ctx, id, common.HexToAddress("0xc3"), hash32("decision"))
	wantRevert(t, err, "CE:state")
	wantBalance(t, a, a.ClaimEscrowAddress(), new(big.Int))
}

func TestClaimEscrow_CancelIsATombstone(t *testing.T) {
	a := newEscrowChain(t)
	ctx := testContext(t)
	id := claimID("cancel")
	hash, err := a.CancelClaim(ctx, id)
	canceled := mustSucceed(t, a, hash, err)
	wantEscrow(t, a, id, ports.EscrowCanceled, new(big.Int))
	wantNoOp(t, a, "cancel", func() (common.Hash, error) { return a.CancelClaim(ctx, id) })

	before := a.relay.nonce
	_, err = a.FundClaim(ctx, id, usdc(5), chainNow(t, a).Add(time.Hour), hash32("metadata"))
	wantRevert(t, err, "CE:state")
	if a.relay.nonce != before {
		t.Fatal("a fund of a canceled claim minted, approved or sent")
	}
	wantBalance(t, a, a.ClaimEscrowAddress(), new(big.Int))

	funded := claimID("funded then canceled")
	hash, err = a.FundClaim(ctx, funded, usdc(5), chainNow(t, a).Add(time.Hour), hash32("metadata"))
	mustSucceed(t, a, hash, err)
	_, err = a.CancelClaim(ctx, funded)
	wantRevert(t, err, "CE:state")

	logs := escrowLogs(t, a, canceled.BlockNumber)
	if kindsOf(logs) != "CANCELED,FUNDED" || logs[0].ClaimID != id || logs[1].ClaimID != funded {
		t.Fatalf("events %s: %+v", kindsOf(logs), logs)
	}
}

func TestClaimEscrow_RefusalsCarryTheContractsReason(t *testing.T) {
	a := newEscrowChain(t)
	ctx := testContext(t)
	id := claimID("refusals")
	_, err := a.FundClaim(ctx, id, usdc(5), chainNow(t, a).Add(-time.Minute), hash32("metadata"))
	wantRevert(t, err, "CE:expired")
	_, err = a.FundClaim(ctx, [32]byte{}, usdc(5), chainNow(t, a).Add(time.Hour), hash32("metadata"))
	wantRevert(t, err, "CE:zero")
	if _, err := a.FundClaim(ctx, id, big.NewInt(0), chainNow(t, a).Add(time.Hour), hash32("metadata")); err == nil {
		t.Fatal("a zero amount was accepted")
	}
	_, err = a.LockClaim(ctx, id)
	wantRevert(t, err, "CE:state")
	_, err = a.RefundClaim(ctx, id)
	wantRevert(t, err, "CE:state")

	hash, err := a.FundClaim(ctx, id, usdc(5), chainNow(t, a).Add(time.Hour), hash32("metadata"))
	mustSucceed(t, a, hash, err)
	_, err = a.ReleaseClaim(ctx, id, common.HexToAddress("0xc4"), [32]byte{})
	wantRevert(t, err, "CE:zero")
	_, err = a.ReleaseClaim(ctx, id, common.Address{}, hash32("decision"))
	wantRevert(t, err, "CE:zero")
	wantEscrow(t, a, id, ports.EscrowFunded, usdc(5))

	// Only the operator may move a claim; anyone may ask for a refund, which pays settlement.
	stranger, _ := crypto.GenerateKey()
	other := newRelayer(a.client, stranger, a.relay.chainID, a.relay.afterSend)
	_, err = other.client.EstimateGas(ctx, ethereum.CallMsg{From: other.from, To: &a.addrs.ClaimEscrow, Data: a.escrow.PackLock(id)})
	wantRevert(t, asRevert(err), "CE:operator")
	_, err = other.client.EstimateGas(ctx, ethereum.CallMsg{From: other.from, To: &a.addrs.ClaimEscrow, Data: a.escrow.PackRefund(id)})
	wantRevert(t, asRevert(err), "CE:notExpired")
	if err := a.AdjustSimulatedTime(2 * time.Hour); err != nil {
		t.Fatal(err)
	}
	if _, err := other.client.EstimateGas(ctx, ethereum.CallMsg{From: other.from, To: &a.addrs.ClaimEscrow, Data: a.escrow.PackRefund(id)}); err != nil {
		t.Fatalf("refund by a stranger after expiry: %v", err)
	}
	var revert *ports.RevertError
	_, err = a.RefundClaim(ctx, claimID("unknown"))
	if !errors.As(err, &revert) || revert.Meaning == "" {
		t.Errorf("err = %v, want a revert with its meaning spelled out", err)
	}
}

func TestClaimEscrow_ConcurrentRetriesSendOnce(t *testing.T) {
	a := newEscrowChain(t)
	ctx := testContext(t)
	id := claimID("concurrent")
	hash, err := a.FundClaim(ctx, id, usdc(3), chainNow(t, a).Add(time.Hour), hash32("metadata"))
	mustSucceed(t, a, hash, err)
	nonceBefore := a.relay.nonce
	const callers = 8
	hashes := make([]common.Hash, callers)
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for i := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			hashes[i], errs[i] = a.ReleaseClaim(ctx, id, common.HexToAddress("0xc5"), hash32("decision"))
		}()
	}
	wg.Wait()
	// Callers that raced the first get its hash; later ones the zero hash.
	sent := map[common.Hash]bool{}
	for i := range callers {
		if errs[i] != nil {
			t.Fatalf("caller %d: %v", i, errs[i])
		}
		if hashes[i] != (common.Hash{}) {
			sent[hashes[i]] = true
			mustSucceed(t, a, hashes[i], nil)
		}
	}
	if len(sent) != 1 {
		t.Errorf("%d release transactions, want 1", len(sent))
	}
	if a.relay.nonce != nonceBefore+1 {
		t.Errorf("the relayer sent %d transactions, want 1", a.relay.nonce-nonceBefore)
	}
	wantBalance(t, a, common.HexToAddress("0xc5"), usdc(3))
}

// TestClaimEscrow_FundWithoutMinting is a public chain's case: the relayer is not the token's
// minter, so it funds from the USDC it holds and says so when that is not enough.
func TestClaimEscrow_FundWithoutMinting(t *testing.T) {
	a := newEscrowChain(t)
	ctx := testContext(t)
	hash, err := a.MintUSDC(ctx, a.RelayerAddress(), usdc(10))
	mustSucceed(t, a, hash, err)
	hash, err = a.relay.sendOnce(ctx, "", nil, call{to: &a.addrs.USDC, data: a.usdc.PackSetMinter(common.HexToAddress("0xdead"))})
	mustSucceed(t, a, hash, err)

	hash, err = a.FundClaim(ctx, claimID("held"), usdc(10), chainNow(t, a).Add(time.Hour), hash32("metadata"))
	mustSucceed(t, a, hash, err)
	wantBalance(t, a, a.RelayerAddress(), new(big.Int))
	before := a.relay.nonce
	_, err = a.FundClaim(ctx, claimID("short"), usdc(1), chainNow(t, a).Add(time.Hour), hash32("metadata"))
	if err == nil || !strings.Contains(err.Error(), "top up") {
		t.Fatalf("err = %v, want the relayer's shortfall", err)
	}
	if a.relay.nonce != before {
		t.Fatal("a fund the relayer cannot pay for was sent")
	}
	wantBalance(t, a, a.ClaimEscrowAddress(), usdc(10))
}

func TestClaimEscrow_NotConfigured(t *testing.T) {
	a := newEscrowChain(t)
	ctx := testContext(t)
	addrs := a.Addresses()
	addrs.ClaimEscrow = common.Address{}
	bare, err := New(ctx, a.client, a.relay.key, addrs, a.relay.afterSend)
	if err != nil {
		t.Fatal(err)
	}
	if bare.ClaimEscrowAddress() != (common.Address{}) || bare.SettlementAddress() != (common.Address{}) || bare.ClaimGracePeriod() != claim.DefaultGracePeriod {
		t.Fatalf("unconfigured escrow: %s %s %s", bare.ClaimEscrowAddress().Hex(), bare.SettlementAddress().Hex(), bare.ClaimGracePeriod())
	}
	id := claimID("bare")
	for name, call := range map[string]func() error{
		"fund":    func() error { _, err := bare.FundClaim(ctx, id, usdc(1), time.Now().Add(time.Hour), id); return err },
		"lock":    func() error { _, err := bare.LockClaim(ctx, id); return err },
		"release": func() error { _, err := bare.ReleaseClaim(ctx, id, common.HexToAddress("0xc6"), id); return err },
		"expire":  func() error { _, err := bare.ExpireClaimNow(ctx, id); return err },
		"refund":  func() error { _, err := bare.RefundClaim(ctx, id); return err },
		"cancel":  func() error { _, err := bare.CancelClaim(ctx, id); return err },
		"read":    func() error { _, err := bare.EscrowClaim(ctx, id); return err },
		"logs":    func() error { _, err := bare.ClaimEscrowLogs(ctx, 0, 1); return err },
	} {
		if err := call(); !errors.Is(err, ErrClaimEscrowNotConfigured) {
			t.Errorf("%s: err = %v, want ErrClaimEscrowNotConfigured", name, err)
		}
	}

	// An escrow operated by another key is refused at start-up, not at the first call.
	stranger, _ := crypto.GenerateKey()
	if _, err := New(ctx, a.client, stranger, a.Addresses(), a.relay.afterSend); err == nil || !strings.Contains(err.Error(), "operated by") {
		t.Errorf("New with another relayer: err = %v, want the operator mismatch", err)
	}
}

func TestClaimEscrowLogs_Bounds(t *testing.T) {
	a := newEscrowChain(t)
	ctx := testContext(t)
	if _, err := a.ClaimEscrowLogs(ctx, 10, 9); err == nil {
		t.Error("backwards range accepted")
	}
	if _, err := a.ClaimEscrowLogs(ctx, 0, ports.MaxLogBlockRange); err == nil {
		t.Error("range over MaxLogBlockRange accepted")
	}
	if logs := escrowLogs(t, a, 0); len(logs) != 0 {
		t.Errorf("logs of a chain without claims = %+v", logs)
	}
}
