package metrics

import (
	"context"
	"database/sql"
	"math/big"
	"strconv"

	"github.com/ethereum/go-ethereum/common"
	"github.com/prometheus/client_golang/prometheus"
)

// Ledger-versus-chain drift: each wallet's ledger mirror (wallet:{id}:onchain) against its USDC
// balance on chain. Reading every wallet's balance at every scrape would cost one node call per
// wallet; instead each scrape checks the next driftBatch wallets of each chain (by id, wrapping
// around) and the gauges report what the latest check of every wallet found. A fleet of N
// wallets is fully re-read every N/driftBatch scrapes.

// driftBatch bounds the node calls one scrape spends on drift, per chain.
const driftBatch = 20

// maxDriftWallets bounds the remembered results; past it the oldest checks are forgotten.
const maxDriftWallets = 100_000

var (
	driftWalletsDesc = prometheus.NewDesc("corridor_ledger_chain_drift_wallets", "Wallets whose ledger mirror differed from their on-chain USDC balance when last checked (a rotating sample per scrape), by environment and chain.",
		[]string{"environment", "chain_id"}, nil)
	driftUSDCDesc = prometheus.NewDesc("corridor_ledger_chain_drift_usdc", "Sum of |ledger mirror − on-chain USDC balance| over the wallets when last checked, in USDC, by environment and chain.",
		[]string{"environment", "chain_id"}, nil)
)

// driftState remembers, per chain, where the rotation stands and each wallet's last drift in
// base units (0: in agreement).
type driftState struct {
	cursor map[string]string
	drift  map[string]map[string]int64 // chain key → wallet id → drift
}

// driftSQL reads the next wallets of a chain with their mirror's posted balance (0 before the
// mirror's first transfer), through the wallets' (environment, chain_id, id) index and the
// accounts' reference key. A wallet's mirror account is its tenant's, so both joins name the
// wallet's tenant as the rows' home (the ledger's distribution column).
const driftSQL = `
SELECT w.id, w.address, COALESCE(b.posted, 0)
FROM wallets w
LEFT JOIN ledger_accounts a ON a.environment = w.environment AND a.asset = 'USDC' AND a.reference = 'wallet:' || w.id || ':onchain'
    AND a.home_tenant_id = w.tenant_id
LEFT JOIN ledger_balances b ON b.account_id = a.id AND b.home_tenant_id = a.home_tenant_id
WHERE w.environment = $1 AND w.chain_id = $2 AND w.id > $3
ORDER BY w.id LIMIT $4`

type walletMirror struct {
	id, address string
	ledger      int64
}

// readDrift checks the chain's next wallets and reports the drift gauges. A wallet whose
// balance the node does not answer keeps its previous result.
func (c *StateCollector) readDrift(ctx context.Context, ch Chain, out *[]prometheus.Metric) error {
	id := strconv.FormatInt(ch.Chain.ChainID(), 10)
	key := ch.Environment + ":" + id
	if c.drift.cursor == nil {
		c.drift = driftState{cursor: map[string]string{}, drift: map[string]map[string]int64{}}
	}
	var batch []walletMirror
	err := c.query(ctx, func(rows *sql.Rows) error {
		var w walletMirror
		err := rows.Scan(&w.id, &w.address, &w.ledger)
		batch = append(batch, w)
		return err
	}, driftSQL, ch.Environment, ch.Chain.ChainID(), c.drift.cursor[key], driftBatch)
	if err != nil {
		return err
	}
	known := c.drift.drift[key]
	if known == nil {
		known = map[string]int64{}
		c.drift.drift[key] = known
	}
	for _, w := range batch {
		onchain, err := ch.Chain.USDCBalance(ctx, common.HexToAddress(w.address))
		if err != nil || onchain == nil || !onchain.IsInt64() {
			continue
		}
		if _, seen := known[w.id]; seen || len(known) < maxDriftWallets {
			known[w.id] = new(big.Int).Sub(big.NewInt(w.ledger), onchain).Int64()
		}
	}
	c.drift.cursor[key] = ""
	if len(batch) == driftBatch {
		c.drift.cursor[key] = batch[len(batch)-1].id
	}
	wallets, total := 0, 0.0
	for _, d := range known {
		if d != 0 {
			wallets++
			total += float64(max(d, -d)) / 1e6
		}
	}
	*out = append(*out, gauge(driftWalletsDesc, float64(wallets), ch.Environment, id), gauge(driftUSDCDesc, total, ch.Environment, id))
	return nil
}
