// Package safe holds the pure rules of Safe (v1.4.1) smart accounts that Corridor relies on: the
// EIP-712 SafeTx hash owners sign, the CREATE2 address SafeProxyFactory will give a new Safe,
// the setup initializer, and the signature format checkNSignatures accepts. Nothing here talks
// to a chain; the chain adapter and the application use these functions so that the hash a
// partner signs, the address a wallet is funded at and the signatures sent on chain agree
// with what the deployed contracts compute.
package safe

import (
	"math/big"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

// Operation is a SafeTx's call type.
type Operation uint8

const (
	// Call is a plain CALL from the Safe; every payment Corridor proposes is one.
	Call Operation = 0
	// DelegateCall runs the target's code in the Safe's context. Corridor never proposes one:
	// it can rewrite the Safe's owners and storage.
	DelegateCall Operation = 1
)

// Transaction is Safe's SafeTx struct: the ten fields owners sign over, in Safe's order.
// Nil big.Int fields are zero. Corridor's relayer pays gas itself, so SafeTxGas, BaseGas,
// GasPrice, GasToken and RefundReceiver are zero in everything it proposes; they are kept so
// the hash matches Safe's for any transaction a partner's tooling builds.
type Transaction struct {
	To             common.Address
	Value          *big.Int
	Data           []byte
	Operation      Operation
	SafeTxGas      *big.Int
	BaseGas        *big.Int
	GasPrice       *big.Int
	GasToken       common.Address
	RefundReceiver common.Address
	Nonce          uint64
}

var (
	// domainSeparatorTypeHash is Safe v1.4.1's DOMAIN_SEPARATOR_TYPEHASH.
	domainSeparatorTypeHash = crypto.Keccak256Hash([]byte("EIP712Domain(uint256 chainId,address verifyingContract)"))
	// safeTxTypeHash is Safe v1.4.1's SAFE_TX_TYPEHASH.
	safeTxTypeHash = crypto.Keccak256Hash([]byte("SafeTx(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)"))
)

// DomainSeparator is Safe's domainSeparator(): keccak256(abi.encode(DOMAIN_SEPARATOR_TYPEHASH,
// chainId, safeAddress)).
func DomainSeparator(chainID int64, safeAddress common.Address) common.Hash {
	return crypto.Keccak256Hash(
		domainSeparatorTypeHash.Bytes(),
		word(big.NewInt(chainID)),
		addressWord(safeAddress),
	)
}

// StructHash is the EIP-712 hashStruct of tx: keccak256(abi.encode(SAFE_TX_TYPEHASH, to, value,
// keccak256(data), operation, safeTxGas, baseGas, gasPrice, gasToken, refundReceiver, nonce)).
func StructHash(tx Transaction) common.Hash {
	return crypto.Keccak256Hash(
		safeTxTypeHash.Bytes(),
		addressWord(tx.To),
		word(tx.Value),
		crypto.Keccak256(tx.Data),
		word(big.NewInt(int64(tx.Operation))),
		word(tx.SafeTxGas),
		word(tx.BaseGas),
		word(tx.GasPrice),
		addressWord(tx.GasToken),
		addressWord(tx.RefundReceiver),
		word(new(big.Int).SetUint64(tx.Nonce)),
	)
}

// TransactionHash is the safeTxHash owners sign and Safe's getTransactionHash returns:
// keccak256(0x19 ‖ 0x01 ‖ domainSeparator ‖ hashStruct(SafeTx)).
func TransactionHash(chainID int64, safeAddress common.Address, tx Transaction) common.Hash {
	return crypto.Keccak256Hash(
		[]byte{0x19, 0x01},
		DomainSeparator(chainID, safeAddress).Bytes(),
		StructHash(tx).Bytes(),
	)
}

// word is the 32-byte big-endian ABI encoding of a uint256; nil is zero. It panics on a negative
// or oversized value: callers build these from validated amounts, so that is a programming error.
func word(v *big.Int) []byte {
	if v == nil {
		return make([]byte, 32)
	}
	if v.Sign() < 0 || v.BitLen() > 256 {
		panic("safe: uint256 field out of range: " + v.String())
	}
	return common.LeftPadBytes(v.Bytes(), 32)
}

func addressWord(a common.Address) []byte { return common.LeftPadBytes(a.Bytes(), 32) }
