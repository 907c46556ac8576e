package ports

import (
	"context"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

// CardSpendModule is the standing permission card settlement needs on a card wallet's Safe: no
// owner signs at the till, so captured card spend leaves the Safe through a Safe module
// (contracts/src/CardSpendModule.sol) that the Safe enables in its setup. Through it the
// service's operator key can move USDC only, only to the module's immutable settlement address,
// and each settlement reference only once; the Safe's owners can disable it with a Safe
// transaction at any time. A chain adapter with a deployed module implements this next to
// Chain (wiring finds it by type assertion, as for ClaimEscrow).
//
// Like Chain, sending methods submit and return the transaction hash without waiting, and are
// never called inside a database transaction.
type CardSpendModule interface {
	// CardModuleAddress is the module contract; the zero address when none is configured.
	CardModuleAddress() common.Address
	// CardSettlementAddress receives every settlement: the issuer's account on the chain.
	CardSettlementAddress() common.Address
	// CardModuleEnabled reports whether the Safe at safe has the module enabled.
	CardModuleEnabled(ctx context.Context, safe common.Address) (bool, error)
	// SettleCardSpend moves amount of USDC from safe to the settlement address under ref.
	// Retry-safe: when ref is already settled on chain it sends nothing and returns the zero
	// hash; when the contract would refuse (module not enabled, balance too low) it returns
	// *RevertError with the reason.
	SettleCardSpend(ctx context.Context, safe common.Address, amount *big.Int, ref [32]byte) (common.Hash, error)
	// CardSettlementLogs returns the module's settlement events in blocks [fromBlock, toBlock]
	// in chain order (same range bounds as Chain.USDCTransferLogs).
	CardSettlementLogs(ctx context.Context, fromBlock, toBlock uint64) ([]CardSettlementLog, error)
}

// CardSettlementLog is one settlement the module executed. The USDC Transfer log of the same
// transaction (from Safe to the settlement address, for Amount) is its money movement: the
// ledger mirror books that log against the issuer's clearing account, not the wallet's, since
// the capture already took the money off the wallet's mirror.
type CardSettlementLog struct {
	TxHash          common.Hash
	LogIndex        uint
	BlockNumber     uint64
	BlockHash       common.Hash
	Safe            common.Address
	Ref             [32]byte
	AmountBaseUnits *big.Int
}
