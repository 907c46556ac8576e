package safepay

import (
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

func word(b []byte) []byte { return common.LeftPadBytes(b, 32) }

func data(selector string, words ...[]byte) []byte {
	out := mustSelector(selector)
	for _, w := range words {
		out = append(out, word(w)...)
	}
	return out
}

// TestDecodeEffect: only a well-formed USDC transfer is stated, with its real amount and
// recipient; everything else is refused with its reason.
func TestDecodeEffect(t *testing.T) {
	usdc := common.HexToAddress("0x00000000000000000000000000000000000000c0")
	other := common.HexToAddress("0x00000000000000000000000000000000000000d0")
	to := common.HexToAddress("0x00000000000000000000000000000000000000aa")
	huge := new(big.Int).Lsh(big.NewInt(1), 70)
	for _, c := range []struct {
		name, reason string
		call         Call
	}{
		{"approve", ReasonApprove, Call{To: usdc.Hex(), Data: data("095ea7b3", to.Bytes(), big.NewInt(1).Bytes())}},
		{"transferFrom", ReasonTransferFrom, Call{To: usdc.Hex(), Data: data("23b872dd", to.Bytes(), to.Bytes(), big.NewInt(1).Bytes())}},
		{"increaseAllowance", ReasonAllowance, Call{To: usdc.Hex(), Data: data("39509351", to.Bytes(), big.NewInt(1).Bytes())}},
		{"unknown selector", ReasonUnknownSelector, Call{To: usdc.Hex(), Data: data("deadbeef")}},
		{"no data", ReasonUnknownSelector, Call{To: to.Hex()}},
		{"native value", ReasonNativeValue, Call{To: to.Hex(), ValueWei: big.NewInt(1)}},
		{"another token", ReasonForeignToken, Call{To: other.Hex(), Data: data("a9059cbb", to.Bytes(), big.NewInt(1).Bytes())}},
		{"short transfer", ReasonMalformed, Call{To: usdc.Hex(), Data: data("a9059cbb", to.Bytes())}},
		{"dirty address word", ReasonMalformed, Call{To: usdc.Hex(), Data: data("a9059cbb", append([]byte{0xff}, word(to.Bytes())[1:]...), big.NewInt(1).Bytes())}},
		{"amount beyond int64", ReasonAmountTooLarge, Call{To: usdc.Hex(), Data: data("a9059cbb", to.Bytes(), huge.Bytes())}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if e := DecodeEffect(c.call, usdc); e.Stated || e.Refusal != c.reason {
				t.Fatalf("effect %+v, want refusal %s", e, c.reason)
			}
		})
	}
	e := DecodeEffect(Call{To: usdc.Hex(), ValueWei: new(big.Int), Data: data("a9059cbb", to.Bytes(), big.NewInt(3_000_000).Bytes())}, usdc)
	if !e.Stated || e.AmountBaseUnits != 3_000_000 || e.Recipient != to.Hex() || e.Token != usdc.Hex() {
		t.Fatalf("transfer effect %+v", e)
	}
	pay := Payment{Kind: KindTransaction, Call: &Call{To: usdc.Hex(), Data: data("a9059cbb", to.Bytes(), big.NewInt(7).Bytes())}, DestinationAddress: usdc.Hex()}
	if g := pay.Gated(usdc); g.AmountBaseUnits != 7 || g.DestinationAddress != to.Hex() {
		t.Fatalf("gated %+v", g)
	}
}
