package safepay

import (
	"math/big"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/safe"
)

func TestParseTransactionOrder(t *testing.T) {
	to := "0x00000000000000000000000000000000000000aa"
	o, err := ParseTransactionOrder(TransactionRequest{WalletID: "wal_1", To: to, Value: "12", Data: "0xA9059cbb"})
	if err != nil {
		t.Fatal(err)
	}
	if o.Call == nil || o.Call.To != common.HexToAddress(to).Hex() || o.Call.ValueWei.Int64() != 12 ||
		len(o.Call.Data) != 4 || o.Destination.Address != o.Call.To || o.AmountBaseUnits != 0 {
		t.Fatalf("order: %+v %+v", o, o.Call)
	}
	for _, c := range []struct {
		in    TransactionRequest
		field string
	}{
		{TransactionRequest{WalletID: "wal_1"}, "to"},
		{TransactionRequest{WalletID: "wal_1", To: "aa" + strings.Repeat("0", 38)}, "to"},
		{TransactionRequest{WalletID: "wal_1", To: to, Value: "1e3"}, "value"},
		{TransactionRequest{WalletID: "wal_1", To: to, Value: "+1"}, "value"},
		{TransactionRequest{WalletID: "wal_1", To: to, Value: "9223372036854775808"}, "value"},
		{TransactionRequest{WalletID: "wal_1", To: to, Data: "a9059cbb"}, "data"},
		{TransactionRequest{WalletID: "wal_1", To: to, Data: "0x" + strings.Repeat("00", MaxCallDataBytes+1)}, "data"},
		{TransactionRequest{WalletID: "wal_1", To: to, Operation: "DELEGATECALL"}, "operation"},
		{TransactionRequest{To: to}, "walletId"},
	} {
		_, err := ParseTransactionOrder(c.in)
		e, ok := err.(*core.Error)
		if !ok || e.Code != core.CodeValidationFailed {
			t.Errorf("%+v: %v", c.in, err)
			continue
		}
		if fields, _ := e.Details["fields"].(map[string]any); fields[c.field] == nil {
			t.Errorf("%+v: no reason for %s: %v", c.in, c.field, e.Details)
		}
	}
}

// TestPropose_TransactionHashesTheCall: a transaction proposal's safeTxHash is the hash of the
// CALL it names, not of a USDC transfer, and rebuilding it matches.
func TestPropose_TransactionHashesTheCall(t *testing.T) {
	safeAddr := common.HexToAddress("0x00000000000000000000000000000000000000Bb")
	to := common.HexToAddress("0x00000000000000000000000000000000000000Cc")
	o, err := ParseTransactionOrder(TransactionRequest{WalletID: "wal_1", To: to.Hex(), Value: "5", Data: "0x0102"})
	if err != nil {
		t.Fatal(err)
	}
	o.Destination.ChainID = 84532
	p, err := Propose(Proposal{ID: "pay_1", TenantID: "ten_1", Environment: core.EnvTest, SourceWalletID: "wal_1",
		SafeAddress: safeAddr.Hex(), ChainID: 84532, Token: common.HexToAddress("0x00000000000000000000000000000000000000Dd"), Order: o,
		DestinationAddress: to.Hex(), DestinationChainID: 84532, Nonce: 7, Threshold: 1, Now: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	want := safe.TransactionHash(84532, safeAddr, safe.Transaction{To: to, Value: big.NewInt(5), Data: []byte{1, 2}, Operation: safe.Call, Nonce: 7}).Hex()
	if p.Kind != KindTransaction || p.AmountBaseUnits != 0 || p.SafeTxHash != want {
		t.Fatalf("payment %+v, want safeTxHash %s", p, want)
	}
	if _, err := p.SafeTransaction(common.Address{}); err != nil {
		t.Fatal(err)
	}
}
