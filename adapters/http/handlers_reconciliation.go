package http

import (
	"math/big"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/shopspring/decimal"

	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/core"
)

// GET /v1/ledger/reconciliation: the ledger mirror versus the chain, per wallet (docs/chain.md).
// Amounts follow the ledger DTOs: a decimal string and the same value in base units as a digit
// string. On-chain values (and so drift) are null when the chain could not be read.

type reconciliationAmounts struct {
	LedgerBalance           string  `json:"ledgerBalance" oas:"required"`
	LedgerBalanceBaseUnits  string  `json:"ledgerBalanceBaseUnits" oas:"required"`
	OnchainBalance          *string `json:"onchainBalance" oas:"required"`
	OnchainBalanceBaseUnits *string `json:"onchainBalanceBaseUnits" oas:"required"`
	// Drift is ledger − on-chain: positive when the ledger shows more than the chain holds.
	Drift          *string `json:"drift" oas:"required"`
	DriftBaseUnits *string `json:"driftBaseUnits" oas:"required"`
}

type walletReconciliationResponse struct {
	WalletID string `json:"walletId" oas:"required"`
	Address  string `json:"address" oas:"required"`
	reconciliationAmounts
}

type reconciliationIndexerResponse struct {
	// IndexedThroughBlock is the last block whose Transfer logs are in the ledger.
	IndexedThroughBlock *uint64 `json:"indexedThroughBlock" oas:"required"`
	// LatestBlock is the chain's head when the on-chain balances were read.
	LatestBlock *uint64 `json:"latestBlock" oas:"required"`
	// LagBlocks is LatestBlock − IndexedThroughBlock (null when either is unknown).
	LagBlocks *uint64 `json:"lagBlocks" oas:"required"`
}

type reconciliationResponse struct {
	Environment string                         `json:"environment" oas:"required,enum=TEST|LIVE"`
	ChainID     int64                          `json:"chainId" oas:"required"`
	Asset       string                         `json:"asset" oas:"required,enum=USDC"`
	Decimals    int                            `json:"decimals" oas:"required"`
	Wallets     []walletReconciliationResponse `json:"wallets" oas:"required" description:"Each wallet's ledger balance against its on-chain balance, at most 1000."`
	Total       int                            `json:"total" oas:"required"`
	// Truncated is true when the tenant has more wallets than one report covers (1000).
	Truncated   bool                          `json:"truncated" oas:"required" description:"Whether more wallets exist than the 1000 listed (total counts them all)."`
	Totals      reconciliationAmounts         `json:"totals" oas:"required"`
	Indexer     reconciliationIndexerResponse `json:"indexer" oas:"required"`
	GeneratedAt time.Time                     `json:"generatedAt" oas:"required"`
}

func (h *financeHandlers) ledgerReconciliation(c *fiber.Ctx) error {
	rep, err := h.svc.LedgerReconciliation(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	return c.JSON(toReconciliation(rep))
}

func toReconciliation(r finance.Reconciliation) reconciliationResponse {
	out := reconciliationResponse{
		Environment: string(r.Environment), ChainID: r.ChainID, Asset: "USDC", Decimals: core.USDCDecimals,
		Wallets: make([]walletReconciliationResponse, len(r.Wallets)), Total: r.Total, Truncated: r.Truncated,
		Totals:      amountsOf(big.NewInt(r.LedgerTotal), r.OnchainTotal, r.DriftTotal),
		Indexer:     reconciliationIndexerResponse{IndexedThroughBlock: r.IndexedThroughBlock, LatestBlock: r.LatestBlock},
		GeneratedAt: r.GeneratedAt,
	}
	if r.IndexedThroughBlock != nil && r.LatestBlock != nil && *r.LatestBlock >= *r.IndexedThroughBlock {
		lag := *r.LatestBlock - *r.IndexedThroughBlock
		out.Indexer.LagBlocks = &lag
	}
	for i, w := range r.Wallets {
		out.Wallets[i] = walletReconciliationResponse{WalletID: w.WalletID, Address: w.Address,
			reconciliationAmounts: amountsOf(big.NewInt(w.LedgerBalance), w.OnchainBalance, w.Drift)}
	}
	return out
}

func amountsOf(ledgerBalance, onchain, drift *big.Int) reconciliationAmounts {
	out := reconciliationAmounts{LedgerBalance: formatBaseUnits(ledgerBalance), LedgerBalanceBaseUnits: ledgerBalance.String()}
	if onchain != nil && drift != nil {
		out.OnchainBalance, out.OnchainBalanceBaseUnits = strPtr(formatBaseUnits(onchain)), strPtr(onchain.String())
		out.Drift, out.DriftBaseUnits = strPtr(formatBaseUnits(drift)), strPtr(drift.String())
	}
	return out
}

// formatBaseUnits is core.FormatUSD for values beyond int64 (an on-chain uint256).
func formatBaseUnits(v *big.Int) string {
	return decimal.NewFromBigInt(v, -core.USDCDecimals).String()
}
