package chain

import (
	"context"
	"math/big"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core/claim"
)

// lateStateClient plays a node whose receipts are served before its latest state shows the
// block they are in, as geth's can for a moment after mining: the code of a contract whose
// creation receipt was read stays invisible to the next lag reads at the latest block.
type lateStateClient struct {
	Client
	lag int

	mu     sync.Mutex
	hidden map[common.Address]int
	reads  int
}

func (c *lateStateClient) TransactionReceipt(ctx context.Context, hash common.Hash) (*types.Receipt, error) {
	receipt, err := c.Client.TransactionReceipt(ctx, hash)
	if err == nil && receipt.ContractAddress != (common.Address{}) {
		c.mu.Lock()
		if _, seen := c.hidden[receipt.ContractAddress]; !seen {
			c.hidden[receipt.ContractAddress] = c.lag
		}
		c.mu.Unlock()
	}
	return receipt, err
}

func (c *lateStateClient) CodeAt(ctx context.Context, account common.Address, block *big.Int) ([]byte, error) {
	c.mu.Lock()
	c.reads++
	if block == nil && c.hidden[account] > 0 {
		c.hidden[account]--
		c.mu.Unlock()
		return nil, nil
	}
	c.mu.Unlock()
	return c.Client.CodeAt(ctx, account, block)
}

func deployOnLateState(t *testing.T, ctx context.Context, lag int) (*lateStateClient, Addresses, error) {
	t.Helper()
	dir, err := DefaultArtifactsDir()
	if err != nil {
		t.Fatal(err)
	}
	arts, err := LoadArtifacts(dir)
	if err != nil {
		t.Fatal(err)
	}
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	backend, err := newSimulatedBackend(key, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = backend.Close() })
	client := &lateStateClient{Client: backend.Client(), lag: lag, hidden: map[common.Address]int{}}
	commit := func() { backend.Commit() }
	addrs, err := deployContracts(ctx, newRelayer(client, key, big.NewInt(SandboxChainID), commit), arts, claim.DefaultGracePeriod)
	if err == nil {
		// Start-up verifies right after deploying: every contract must be visible by then.
		_, err = New(ctx, client, key, addrs, commit)
	}
	return client, addrs, err
}

func TestDeployContracts_WaitsUntilTheLatestStateHoldsTheCode(t *testing.T) {
	ctx := testContext(t)
	client, addrs, err := deployOnLateState(t, ctx, 3)
	if err != nil {
		t.Fatalf("deploying on a node whose state trails its receipts: %v", err)
	}
	if addrs.ClaimEscrow == (common.Address{}) || addrs.USDC == (common.Address{}) {
		t.Fatalf("addresses %+v", addrs)
	}
	client.mu.Lock()
	defer client.mu.Unlock()
	for address, left := range client.hidden {
		if left != 0 {
			t.Errorf("the deployment did not wait for the code at %s (%d reads still to hide it)", address.Hex(), left)
		}
	}
}

func TestDeployContracts_GivesUpWhenTheCodeNeverShows(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, _, err := deployOnLateState(t, ctx, 1<<30)
	if err == nil || !strings.Contains(err.Error(), "deploying SafeL2") || !strings.Contains(err.Error(), "no code") {
		t.Fatalf("err = %v, want a bounded wait for SafeL2's code", err)
	}
}
