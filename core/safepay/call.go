package safepay

import (
	"encoding/hex"
	"math/big"
	"strings"
	"unicode/utf8"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
)

// Kind tells a USDC payment from an arbitrary Safe transaction; both go through the same
// propose, sign, execute machinery and nonce queue.
type Kind string

const (
	// KindTransfer is a USDC transfer of AmountBaseUnits to the destination.
	KindTransfer Kind = "transfer"
	// KindTransaction is a CALL the tenant composed (POST /v1/wallets/{id}/transactions):
	// Call says what, the destination is Call.To and AmountBaseUnits is 0.
	KindTransaction Kind = "transaction"
)

// MaxCallDataBytes bounds a transaction proposal's calldata.
const MaxCallDataBytes = 32 * 1024

// Call is what a transaction proposal executes from the Safe: a CALL of To with ValueWei of
// the chain's native coin and Data. DELEGATECALL is never proposed (it runs foreign code with
// the Safe's storage and could replace its owners).
type Call struct {
	To       string // EIP-55
	ValueWei *big.Int
	Data     []byte
}

// TransactionRequest is a transaction proposal as a client sends it.
type TransactionRequest struct {
	WalletID         string
	To               string
	Value            string // wei, decimal; "" = 0
	Data             string // 0x-prefixed hex; "" = none
	Operation        string // "" or CALL
	Memo             string
	TwofaChallengeID string
}

// ParseTransactionOrder validates a transaction proposal and names every invalid field. The
// order's destination is the called address; its chain is the source wallet's, set by the
// caller once the wallet is read.
func ParseTransactionOrder(in TransactionRequest) (Order, error) {
	errs := core.FieldErrors{}
	out := Order{SourceWalletID: strings.TrimSpace(in.WalletID), Asset: AssetUSDC, Memo: in.Memo}
	call := Call{ValueWei: new(big.Int), Data: []byte{}}
	to := strings.TrimSpace(in.To)
	switch {
	case to == "":
		errs.Add("to", "is required")
	case !strings.HasPrefix(to, "0x") || !common.IsHexAddress(to):
		errs.Add("to", "must be a 0x-prefixed 20-byte hex address")
	case common.HexToAddress(to) == (common.Address{}):
		errs.Add("to", "must not be the zero address")
	default:
		call.To = common.HexToAddress(to).Hex()
	}
	if in.Value != "" {
		// The one amount parser, with no fraction digits: wei up to 2^63-1 (about 9.2 ether),
		// far above what a sandbox or operational Safe call sends.
		if v, err := core.ParseAmount("value", 0, in.Value); err != nil {
			errs.Add("value", "must be a decimal string of wei, from 0 to 9223372036854775807")
		} else {
			call.ValueWei = big.NewInt(v)
		}
	}
	if in.Data != "" {
		raw, err := hex.DecodeString(strings.TrimPrefix(in.Data, "0x"))
		switch {
		case !strings.HasPrefix(in.Data, "0x") || err != nil:
			errs.Add("data", "must be 0x-prefixed hex with an even number of digits")
		case len(raw) > MaxCallDataBytes:
			errs.Add("data", "must be at most 32768 bytes")
		default:
			call.Data = raw
		}
	}
	if in.Operation != "" && in.Operation != "CALL" {
		errs.Add("operation", "must be CALL: DELEGATECALL is not proposed through the API")
	}
	if utf8.RuneCountInString(in.Memo) > MaxMemoLength {
		errs.Add("memo", "must be at most 500 characters")
	} else if why := core.TextProblem(in.Memo); why != "" {
		errs.Add("memo", why)
	}
	if out.SourceWalletID == "" {
		errs.Add("walletId", "is required")
	}
	out.Destination = Destination{Type: DestinationAddress, Address: call.To}
	out.Call = &call
	return out, errs.Err()
}

// safeTransaction is the SafeTx of a transaction proposal at nonce.
func (c Call) safeTransaction(nonce uint64) (safe.Transaction, error) {
	tx := safe.Transaction{To: common.HexToAddress(c.To), Value: new(big.Int).Set(c.ValueWei), Data: c.Data, Operation: safe.Call, Nonce: nonce}
	return tx, tx.Validate()
}
