package safepay

import (
	"bytes"
	"encoding/hex"
	"math/big"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
)

// Effect is what a transaction proposal does to the Safe's money, as the gates and the custody
// signer must be able to state it: Token moves AmountBaseUnits to Recipient. Stated is false
// when the call's effect cannot be put that way (Refusal then says why).
type Effect struct {
	Stated          bool
	Token           string // EIP-55
	AmountBaseUnits int64
	Recipient       string // EIP-55
	// Selector is the call's 4-byte function selector as 0x-hex ("" for no calldata).
	Selector string
	// Refusal is the reason an unstated effect is refused for a custodial wallet.
	Refusal string
}

// ERC-20 selectors the decoder knows (the first four bytes of keccak256 of the signature).
var (
	selectorTransfer          = mustSelector("a9059cbb") // transfer(address,uint256)
	selectorApprove           = mustSelector("095ea7b3") // approve(address,uint256)
	selectorTransferFrom      = mustSelector("23b872dd") // transferFrom(address,address,uint256)
	selectorIncreaseAllowance = mustSelector("39509351") // increaseAllowance(address,uint256)
)

// Reasons an effect is not stated; they are details.reason of CUSTODY_CALL_REFUSED.
const (
	ReasonApprove         = "ERC20_APPROVE"
	ReasonTransferFrom    = "ERC20_TRANSFER_FROM"
	ReasonAllowance       = "ERC20_INCREASE_ALLOWANCE"
	ReasonUnknownSelector = "UNKNOWN_SELECTOR"
	ReasonNativeValue     = "NATIVE_VALUE"
	ReasonForeignToken    = "TOKEN_NOT_USDC"
	ReasonMalformed       = "MALFORMED_CALLDATA"
	ReasonAmountTooLarge  = "AMOUNT_TOO_LARGE"
)

// CodeCustodyCallRefused is the refusal of a transaction a custodial wallet's key will not sign
// because its effect cannot be stated as (token, amount, counterparty).
const CodeCustodyCallRefused core.Code = "CUSTODY_CALL_REFUSED"

func mustSelector(h string) []byte {
	b, err := hex.DecodeString(h)
	if err != nil || len(b) != 4 {
		panic("safepay: bad selector " + h)
	}
	return b
}

// DecodeEffect states what c does: an ERC-20 transfer of the service's USDC is decoded to its
// real amount and recipient; anything else (approve, transferFrom, increaseAllowance, another
// token, native value, an unknown selector, a call with no data) is not stated, with the reason.
// DELEGATECALL never reaches here: proposals are CALLs only.
func DecodeEffect(c Call, usdc common.Address) Effect {
	e := Effect{}
	if len(c.Data) >= 4 {
		e.Selector = "0x" + hex.EncodeToString(c.Data[:4])
	}
	if c.ValueWei != nil && c.ValueWei.Sign() != 0 {
		e.Refusal = ReasonNativeValue
		return e
	}
	if len(c.Data) < 4 {
		e.Refusal = ReasonUnknownSelector
		return e
	}
	switch sel := c.Data[:4]; {
	case bytes.Equal(sel, selectorApprove):
		e.Refusal = ReasonApprove
	case bytes.Equal(sel, selectorTransferFrom):
		e.Refusal = ReasonTransferFrom
	case bytes.Equal(sel, selectorIncreaseAllowance):
		e.Refusal = ReasonAllowance
	case !bytes.Equal(sel, selectorTransfer):
		e.Refusal = ReasonUnknownSelector
	case !strings.EqualFold(c.To, usdc.Hex()):
		e.Refusal = ReasonForeignToken
	default:
		return decodeTransfer(e, c, usdc)
	}
	return e
}

// decodeTransfer reads transfer(address,uint256)'s two words: exactly 4+64 bytes, an address
// word with zero padding and an amount that fits base units.
func decodeTransfer(e Effect, c Call, usdc common.Address) Effect {
	args := c.Data[4:]
	if len(args) != 64 || !allZero(args[:12]) {
		e.Refusal = ReasonMalformed
		return e
	}
	amount := new(big.Int).SetBytes(args[32:64])
	if !amount.IsInt64() {
		e.Refusal = ReasonAmountTooLarge
		return e
	}
	e.Stated, e.Token, e.AmountBaseUnits = true, usdc.Hex(), amount.Int64()
	e.Recipient = common.BytesToAddress(args[12:32]).Hex()
	return e
}

func allZero(b []byte) bool {
	for _, x := range b {
		if x != 0 {
			return false
		}
	}
	return true
}

// RefuseUnstated is the CUSTODY_CALL_REFUSED error for an effect that is not stated.
func RefuseUnstated(e Effect) error {
	return core.E(CodeCustodyCallRefused,
		"a custodial wallet's key signs only a USDC transfer it can state as (token, amount, recipient); this call is refused (%s)", e.Refusal).
		WithDetails(map[string]any{"reason": e.Refusal, "selector": e.Selector})
}

// Gated is the payment as the gates must see it: a transaction proposal whose effect is a
// stated USDC transfer is gated as a payment of that amount to that recipient; any other
// payment is returned unchanged.
func (p Payment) Gated(usdc common.Address) Payment {
	if p.Kind != KindTransaction || p.Call == nil {
		return p
	}
	e := DecodeEffect(*p.Call, usdc)
	if !e.Stated {
		return p
	}
	p.AmountBaseUnits, p.DestinationAddress = e.AmountBaseUnits, e.Recipient
	return p
}
