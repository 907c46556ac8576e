package mirror

import (
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/corridorhq/corridor/adapters/metrics"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// driftChain is the sandbox chain under another chain id (so the collector sees only this
// test's wallets), whose USDC balances exceed the real ones by extra per address.
type driftChain struct {
	ports.Chain
	extra map[common.Address]int64
}

func (c driftChain) ChainID() int64 { return driftChainID }

func (c driftChain) USDCBalance(ctx context.Context, a common.Address) (*big.Int, error) {
	b, err := c.Chain.USDCBalance(ctx, a)
	if err != nil {
		return nil, err
	}
	return new(big.Int).Add(b, big.NewInt(c.extra[a])), nil
}

const driftChainID = 991_337

// driftGauges scrapes a fresh collector and returns the two drift gauges of the test's chain.
func driftGauges(t *testing.T, chain ports.Chain) (wallets, usdc float64) {
	t.Helper()
	c, err := metrics.NewStateCollector(metrics.StateConfig{DB: env().Service.Store.DB().DB, Chains: []metrics.Chain{{Environment: "TEST", Chain: chain}}})
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(c)
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, f := range families {
		for _, m := range f.GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			if labels["chain_id"] != "991337" {
				continue
			}
			switch f.GetName() {
			case "corridor_ledger_chain_drift_wallets":
				wallets, found = m.GetGauge().GetValue(), found+1
			case "corridor_ledger_chain_drift_usdc":
				usdc, found = m.GetGauge().GetValue(), found+1
			}
		}
	}
	if found != 2 {
		t.Fatalf("drift gauges not reported for chain %d", driftChainID)
	}
	return wallets, usdc
}

// TestMirror_DriftMetric: a wallet whose on-chain balance differs from its ledger mirror is
// counted by corridor_ledger_chain_drift_wallets with the difference in
// corridor_ledger_chain_drift_usdc; in agreement, both are 0.
func TestMirror_DriftMetric(t *testing.T) {
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, false)
	ctx := context.Background()
	db := env().Service.Store.DB().DB
	if _, err := db.ExecContext(ctx, `UPDATE wallets SET chain_id = $1 WHERE id = $2`, driftChainID, w.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, `INSERT INTO chain_index_cursors (environment, chain_id, next_block, updated_at)
		VALUES ($1, $2, 0, now()) ON CONFLICT DO NOTHING`, string(core.EnvTest), driftChainID); err != nil {
		t.Fatal(err)
	}
	agree := driftChain{Chain: env().Chain, extra: map[common.Address]int64{}}
	if n, sum := driftGauges(t, agree); n != 0 || sum != 0 {
		t.Fatalf("in agreement: %v wallets, %v USDC", n, sum)
	}
	differ := driftChain{Chain: env().Chain, extra: map[common.Address]int64{w.Address: 2_500_000}}
	if n, sum := driftGauges(t, differ); n != 1 || sum != 2.5 {
		t.Fatalf("2.5 USDC more on chain: %v wallets, %v USDC", n, sum)
	}
}
