package safe

import (
	"fmt"
	"math/big"

	"github.com/ethereum/go-ethereum/common"
)

const erc20ABI = `[{"type":"function","name":"transfer","stateMutability":"nonpayable",
	"inputs":[{"name":"to","type":"address"},{"name":"amount","type":"uint256"}],
	"outputs":[{"name":"","type":"bool"}]}]`

var parsedERC20ABI = mustParseABI(erc20ABI)

// TokenTransfer is the SafeTx for a payment: the Safe calls token.transfer(to, amount) with no
// ETH, a plain CALL, and no gas refund (the relayer pays), at the given Safe nonce.
func TokenTransfer(token, to common.Address, amountBaseUnits *big.Int, nonce uint64) (Transaction, error) {
	if amountBaseUnits == nil || amountBaseUnits.Sign() <= 0 || amountBaseUnits.BitLen() > 256 {
		return Transaction{}, fmt.Errorf("safe: token transfer amount must be a positive uint256")
	}
	if to == (common.Address{}) {
		return Transaction{}, fmt.Errorf("safe: token transfer to the zero address")
	}
	data, err := parsedERC20ABI.Pack("transfer", to, amountBaseUnits)
	if err != nil {
		return Transaction{}, err
	}
	return Transaction{To: token, Value: new(big.Int), Data: data, Operation: Call, Nonce: nonce}, nil
}

// Validate reports a transaction the hash functions cannot encode: an operation other than
// CALL or DELEGATECALL, or a negative or wider-than-256-bit number. The hash functions panic on
// those, so code that builds a Transaction from outside input validates it first.
func (tx Transaction) Validate() error {
	if tx.Operation != Call && tx.Operation != DelegateCall {
		return fmt.Errorf("safe: operation %d is neither CALL (0) nor DELEGATECALL (1)", tx.Operation)
	}
	for name, v := range map[string]*big.Int{"value": tx.Value, "safeTxGas": tx.SafeTxGas, "baseGas": tx.BaseGas, "gasPrice": tx.GasPrice} {
		if v != nil && (v.Sign() < 0 || v.BitLen() > 256) {
			return fmt.Errorf("safe: %s must be a uint256, got %s", name, v)
		}
	}
	return nil
}
