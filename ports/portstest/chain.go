package portstest

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/ports"
)

// ChainReads is the contract of the reading side of ports.Chain, with the relayer's sends as
// fixtures: balances start at zero and follow mints and sends; a mined transaction has a
// successful receipt in a block at or below the head, whose hash BlockHash answers (and no
// hash above the head); an unknown transaction is PENDING; USDC Transfer logs come in chain
// order, filtered by party, within the bounds of a query; a Safe reads as not deployed until
// DeploySafe puts it at its predicted address, then shows its owners, threshold and nonce 0.
// newChain may return one chain for every subtest.
func ChainReads(t *testing.T, newChain func(t *testing.T) ports.Chain) {
	t.Run("identity", func(t *testing.T) {
		c := newChain(t)
		if c.ChainID() <= 0 || c.USDCAddress() == (common.Address{}) || c.SafeDeployment().ProxyFactory == (common.Address{}) {
			t.Fatalf("chain %d, USDC %s, deployment %+v", c.ChainID(), c.USDCAddress().Hex(), c.SafeDeployment())
		}
	})
	for _, sub := range []struct {
		name string
		run  func(t *testing.T, ctx context.Context, c ports.Chain)
	}{
		{"a mint shows in balance, receipt, block and logs", chainMintShows},
		{"logs come in chain order and follow sends", chainLogsInOrder},
		{"bounds: unknown transactions, blocks above the head, wide log ranges", chainBounds},
		{"a Safe reads as deployed at its predicted address", chainSafeDeploys},
	} {
		t.Run(sub.name, func(t *testing.T) { sub.run(t, context.Background(), newChain(t)) })
	}
}

// freshAddress is an address nobody has used.
func freshAddress(t *testing.T) common.Address {
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return crypto.PubkeyToAddress(key.PublicKey)
}

// chainMintShows: a mint shows in the balance, the receipt, the block and the logs, and not in a bystander's logs.
func chainMintShows(t *testing.T, ctx context.Context, c ports.Chain) {
	holder, bystander := freshAddress(t), freshAddress(t)
	if b, err := c.USDCBalance(ctx, holder); err != nil || b.Sign() != 0 {
		t.Fatalf("a fresh address holds %v, %v", b, err)
	}
	tx, err := c.MintUSDC(ctx, holder, big.NewInt(5_000_000))
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Receipt(ctx, tx)
	if err != nil || r.Status != ports.TxSucceeded || r.TxHash != tx || r.BlockNumber == 0 {
		t.Fatalf("receipt %+v, %v", r, err)
	}
	head, err := c.LatestBlock(ctx)
	if err != nil || head < r.BlockNumber {
		t.Fatalf("head %d, %v; the mint is in block %d", head, err, r.BlockNumber)
	}
	if b, err := c.USDCBalance(ctx, holder); err != nil || b.Cmp(big.NewInt(5_000_000)) != 0 {
		t.Fatalf("after the mint: %v, %v", b, err)
	}
	logs, err := c.USDCTransferLogs(ctx, r.BlockNumber, r.BlockNumber, []common.Address{holder})
	if err != nil || len(logs) != 1 {
		t.Fatalf("logs %+v, %v; want the mint", logs, err)
	}
	l := logs[0]
	if l.TxHash != tx || l.From != (common.Address{}) || l.To != holder || l.AmountBaseUnits.Cmp(big.NewInt(5_000_000)) != 0 || l.BlockNumber != r.BlockNumber {
		t.Fatalf("log %+v", l)
	}
	hash, found, err := c.BlockHash(ctx, r.BlockNumber)
	if err != nil || !found || hash != l.BlockHash {
		t.Fatalf("BlockHash = %s, %v, %v; the log says %s", hash.Hex(), found, err, l.BlockHash.Hex())
	}
	if others, err := c.USDCTransferLogs(ctx, r.BlockNumber, r.BlockNumber, []common.Address{bystander}); err != nil || len(others) != 0 {
		t.Fatalf("a bystander's logs: %+v, %v", others, err)
	}
}

// chainLogsInOrder: logs come in chain order and balances follow sends.
func chainLogsInOrder(t *testing.T, ctx context.Context, c ports.Chain) {
	a, b := freshAddress(t), freshAddress(t)
	first, err := c.MintUSDC(ctx, a, big.NewInt(1))
	if err != nil {
		t.Fatal(err)
	}
	second, err := c.MintUSDC(ctx, b, big.NewInt(2))
	if err != nil {
		t.Fatal(err)
	}
	r1, _ := c.Receipt(ctx, first)
	r2, _ := c.Receipt(ctx, second)
	logs, err := c.USDCTransferLogs(ctx, r1.BlockNumber, r2.BlockNumber, []common.Address{b, a})
	if err != nil || len(logs) != 2 || logs[0].TxHash != first || logs[1].TxHash != second {
		t.Fatalf("logs %+v, %v; want the two mints in order", logs, err)
	}
	if _, err := c.SendETH(ctx, a, big.NewInt(7)); err != nil {
		t.Fatal(err)
	}
	if wei, err := c.ETHBalance(ctx, a); err != nil || wei.Cmp(big.NewInt(7)) != 0 {
		t.Fatalf("ETH after a send: %v, %v", wei, err)
	}
}

// chainBounds: unknown transactions are pending, blocks above the head are not found, and bad log ranges and zero mints are refused.
func chainBounds(t *testing.T, ctx context.Context, c ports.Chain) {
	unknown := common.BytesToHash(crypto.Keccak256([]byte(freshAddress(t).Hex())))
	if r, err := c.Receipt(ctx, unknown); err != nil || r.Status != ports.TxPending {
		t.Fatalf("an unknown transaction: %+v, %v", r, err)
	}
	head, err := c.LatestBlock(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, found, err := c.BlockHash(ctx, head+1_000); err != nil || found {
		t.Fatalf("a block above the head: found=%v, %v", found, err)
	}
	if _, err := c.USDCTransferLogs(ctx, 0, ports.MaxLogBlockRange, nil); err == nil {
		t.Fatal("a log range wider than MaxLogBlockRange answered")
	}
	if _, err := c.USDCTransferLogs(ctx, 5, 4, nil); err == nil {
		t.Fatal("a backwards log range answered")
	}
	if _, err := c.MintUSDC(ctx, freshAddress(t), big.NewInt(0)); err == nil {
		t.Fatal("a zero mint was sent")
	}
}

// chainSafeDeploys: a Safe reads as not deployed until DeploySafe puts it at its predicted address (once), then shows its owners, threshold and nonce 0.
func chainSafeDeploys(t *testing.T, ctx context.Context, c ports.Chain) {
	owners := []common.Address{freshAddress(t), freshAddress(t)}
	cfg := ports.SafeConfig{Owners: owners, Threshold: 2, SaltNonce: safe.SaltNonceFor("wal_contract_" + freshAddress(t).Hex())}
	predicted, err := c.PredictSafeAddress(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if deployed, err := c.IsDeployed(ctx, predicted); err != nil || deployed {
		t.Fatalf("before deployment: %v, %v", deployed, err)
	}
	tx, address, err := c.DeploySafe(ctx, cfg)
	if err != nil || address != predicted || tx == (common.Hash{}) {
		t.Fatalf("DeploySafe = %s, %s, %v; predicted %s", tx.Hex(), address.Hex(), err, predicted.Hex())
	}
	if again, _, err := c.DeploySafe(ctx, cfg); err != nil || again != (common.Hash{}) {
		t.Fatalf("a second DeploySafe sent %s, %v", again.Hex(), err)
	}
	if deployed, err := c.IsDeployed(ctx, predicted); err != nil || !deployed {
		t.Fatalf("after deployment: %v, %v", deployed, err)
	}
	got, err := c.SafeOwners(ctx, address)
	if err != nil || !sameAddresses(got, owners) {
		t.Fatalf("owners %v, %v; want %v", got, err, owners)
	}
	if n, err := c.SafeThreshold(ctx, address); err != nil || n != 2 {
		t.Fatalf("threshold %d, %v", n, err)
	}
	if n, err := c.SafeNonce(ctx, address); err != nil || n != 0 {
		t.Fatalf("nonce %d, %v", n, err)
	}
	if _, err := c.SafeNonce(ctx, freshAddress(t)); err == nil {
		t.Fatal("the nonce of an address without a Safe answered")
	}
}

func sameAddresses(a, b []common.Address) bool {
	if len(a) != len(b) {
		return false
	}
	seen := map[common.Address]int{}
	for _, x := range a {
		seen[x]++
	}
	for _, x := range b {
		seen[x]--
	}
	for _, n := range seen {
		if n != 0 {
			return false
		}
	}
	return true
}
