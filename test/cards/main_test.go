// Package cards tests the card capability over HTTP against a real database and the simulated
// sandbox chain: issuance from DEPLOYED wallets, limits, freeze, authorizations in D13's order
// with their ledger holds, concurrency on one card's windows, idempotent retries and the
// policy gate.
package cards

import (
	"context"
	"math/big"
	"sync"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"corridor/adapters/chain"
	"corridor/core"
	"corridor/ports"
	"corridor/test/harness"
	"corridor/wiring"
)

func TestMain(m *testing.M) {
	harness.MainWithOptions(m, harness.Options{Chain: true, Modify: func(c *wiring.Config) {
		if sim, ok := c.ChainAdapters[core.EnvTest].(*chain.Adapter); ok {
			c.ChainAdapters = map[core.Environment]ports.Chain{core.EnvTest: moduleChain{Adapter: sim}}
		}
	}})
}

func env() *harness.Env { return harness.Shared() }

// moduleChain is the simulated chain with a stand-in card spend module: every Safe has it
// enabled unless listed in moduleDisabled, and a settlement is recorded in settled and reported
// as already settled on chain (the zero hash). The Solidity module and its chain adapter are
// tested with the contracts; these tests cover the capability around them.
type moduleChain struct{ *chain.Adapter }

var (
	moduleDisabled sync.Map // common.Address → true
	settled        sync.Map // [32]byte ref → *big.Int
)

var _ ports.CardSpendModule = moduleChain{}

func (moduleChain) CardModuleAddress() common.Address {
	return common.HexToAddress("0x00000000000000000000000000000000000C4Rd0")
}

func (moduleChain) CardSettlementAddress() common.Address {
	return common.HexToAddress("0x00000000000000000000000000000000000155e5")
}

func (moduleChain) CardModuleEnabled(_ context.Context, safe common.Address) (bool, error) {
	_, off := moduleDisabled.Load(safe)
	return !off, nil
}

func (moduleChain) SettleCardSpend(_ context.Context, _ common.Address, amount *big.Int, ref [32]byte) (common.Hash, error) {
	settled.Store(ref, new(big.Int).Set(amount))
	return common.Hash{}, nil
}

func (moduleChain) CardSettlementLogs(context.Context, uint64, uint64) ([]ports.CardSettlementLog, error) {
	return nil, nil
}
