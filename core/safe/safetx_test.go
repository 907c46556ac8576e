package safe

import (
	"encoding/json"
	"fmt"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

func TestTypeHashes_AreSafeV141Constants(t *testing.T) {
	// The constants as written in Safe v1.4.1's Safe.sol.
	if got, want := domainSeparatorTypeHash.Hex(), "0x47e79534a245952e8b16893a336b85a3d9ea9fa8c573f3d803afb92a79469218"; got != want {
		t.Errorf("DOMAIN_SEPARATOR_TYPEHASH = %s, want %s", got, want)
	}
	if got, want := safeTxTypeHash.Hex(), "0xbb8310d486368db6bd6f849402fdd73ad53d316b5a4b2644ad6efe0f941286d8"; got != want {
		t.Errorf("SAFE_TX_TYPEHASH = %s, want %s", got, want)
	}
}

// A mainnet transaction of Safe 0xf654…DA5d at nonce 434 (a v1.3.0 Safe: the SafeTx encoding and
// domain are unchanged in v1.4.1), with the domain, message and safeTxHash its owners signed.
func TestTransactionHash_MainnetVector(t *testing.T) {
	tx := Transaction{
		To:    common.HexToAddress("0xCe01C90dE7FD1bcFa39e237FE6D8D9F569e8A6a3"),
		Value: big.NewInt(0),
		Data: hexutil.MustDecode("0xac9650d8" +
			"0000000000000000000000000000000000000000000000000000000000000020" +
			"0000000000000000000000000000000000000000000000000000000000000001" +
			"0000000000000000000000000000000000000000000000000000000000000020" +
			"0000000000000000000000000000000000000000000000000000000000000084" +
			"6c3dead4000000000000000000000000f65475e74c1ed6d004d5240b06e30887" +
			"24dfda5d00000000000000000000000000000000000000000000000000000000" +
			"000000000000000000000000000000000000000000000000002caaf1dd9f3a1f" +
			"f600000000000000000000000000000000000000000000000000000000000000" +
			"0000000100000000000000000000000000000000000000000000000000000000"),
		Nonce: 434,
	}
	safeAddress := common.HexToAddress("0xf65475e74C1Ed6d004d5240b06E3088724dFDA5d")
	if got, want := DomainSeparator(1, safeAddress).Hex(), "0xaf88393f1c14cf4d8f0b773c4f37cf80a29d606bed88e0fd8f61350debb3ac65"; got != want {
		t.Errorf("domain separator = %s, want %s", got, want)
	}
	if got, want := StructHash(tx).Hex(), "0x4d51fb13b155063239c656f466a7d1810bfa863edb4f96aad775643d4afe3675"; got != want {
		t.Errorf("struct hash = %s, want %s", got, want)
	}
	if got, want := TransactionHash(1, safeAddress, tx).Hex(), "0x57f5c1a8390932d29f5aa6e321a2e689c483a728fa5bccfc4ac7becb91239801"; got != want {
		t.Errorf("safeTxHash = %s, want %s", got, want)
	}
}

// A Corridor payment on the sandbox chain; pinned so an accidental change to the encoding shows.
// TestTransactionHash_MatchesTypedData proves the same value by a second, independent path.
func TestTransactionHash_SandboxVector(t *testing.T) {
	tx, err := TokenTransfer(
		common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3"),
		common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"),
		big.NewInt(12_500_000), 7)
	if err != nil {
		t.Fatal(err)
	}
	got := TransactionHash(84532, common.HexToAddress("0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0"), tx).Hex()
	if want := sandboxVectorHash; got != want {
		t.Errorf("safeTxHash = %s, want %s", got, want)
	}
}

const sandboxVectorHash = "0xdfa6f0b6372cdb9e999c1b9b78ecc9c3d334b9ecabfc1cd4a6848d2d591e39f2"

// typedDataJSON is the eth_signTypedData_v4 payload a wallet (Safe{Wallet}, MetaMask) signs for
// a SafeTx. Hashing it with go-ethereum's generic EIP-712 implementation is an independent
// computation of the safeTxHash.
func typedDataJSON(chainID int64, safeAddress common.Address, tx Transaction) string {
	num := func(v *big.Int) string {
		if v == nil {
			return "0"
		}
		return v.String()
	}
	return fmt.Sprintf(`{
	  "types": {
	    "EIP712Domain": [{"name": "chainId", "type": "uint256"}, {"name": "verifyingContract", "type": "address"}],
	    "SafeTx": [
	      {"name": "to", "type": "address"}, {"name": "value", "type": "uint256"},
	      {"name": "data", "type": "bytes"}, {"name": "operation", "type": "uint8"},
	      {"name": "safeTxGas", "type": "uint256"}, {"name": "baseGas", "type": "uint256"},
	      {"name": "gasPrice", "type": "uint256"}, {"name": "gasToken", "type": "address"},
	      {"name": "refundReceiver", "type": "address"}, {"name": "nonce", "type": "uint256"}]
	  },
	  "primaryType": "SafeTx",
	  "domain": {"chainId": "%d", "verifyingContract": "%s"},
	  "message": {
	    "to": "%s", "value": "%s", "data": "%s", "operation": "%d",
	    "safeTxGas": "%s", "baseGas": "%s", "gasPrice": "%s",
	    "gasToken": "%s", "refundReceiver": "%s", "nonce": "%d"
	  }
	}`, chainID, safeAddress.Hex(), tx.To.Hex(), num(tx.Value), hexutil.Encode(tx.Data), tx.Operation,
		num(tx.SafeTxGas), num(tx.BaseGas), num(tx.GasPrice), tx.GasToken.Hex(), tx.RefundReceiver.Hex(), tx.Nonce)
}

func TestTransactionHash_MatchesTypedData(t *testing.T) {
	transfer, err := TokenTransfer(common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3"),
		common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"), big.NewInt(12_500_000), 7)
	if err != nil {
		t.Fatal(err)
	}
	maxUint256 := new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))
	cases := map[string]struct {
		chainID int64
		safe    common.Address
		tx      Transaction
	}{
		"sandbox USDC payment": {84532, common.HexToAddress("0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0"), transfer},
		"empty transaction":    {8453, common.HexToAddress("0x0000000000000000000000000000000000000001"), Transaction{}},
		"every field set": {1, common.HexToAddress("0x1111111111111111111111111111111111111111"), Transaction{
			To: common.HexToAddress("0x2222222222222222222222222222222222222222"), Value: big.NewInt(3),
			Data: []byte{0x44, 0x44, 0x44, 0x44}, Operation: DelegateCall,
			SafeTxGas: big.NewInt(5), BaseGas: big.NewInt(6), GasPrice: big.NewInt(7),
			GasToken:       common.HexToAddress("0x8888888888888888888888888888888888888888"),
			RefundReceiver: common.HexToAddress("0x9999999999999999999999999999999999999999"), Nonce: 10,
		}},
		"extreme values": {1 << 40, common.HexToAddress("0xffffffffffffffffffffffffffffffffffffffff"), Transaction{
			To: common.HexToAddress("0xffffffffffffffffffffffffffffffffffffffff"), Value: maxUint256,
			Data: make([]byte, 1000), SafeTxGas: maxUint256, BaseGas: maxUint256, GasPrice: maxUint256,
			Nonce: ^uint64(0),
		}},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			var typed apitypes.TypedData
			if err := json.Unmarshal([]byte(typedDataJSON(c.chainID, c.safe, c.tx)), &typed); err != nil {
				t.Fatal(err)
			}
			want, _, err := apitypes.TypedDataAndHash(typed)
			if err != nil {
				t.Fatal(err)
			}
			if got := TransactionHash(c.chainID, c.safe, c.tx); got != common.BytesToHash(want) {
				t.Errorf("TransactionHash = %s, EIP-712 typed data hash = %s", got, common.BytesToHash(want))
			}
		})
	}
}

func TestTransactionHash_DependsOnChainAndSafe(t *testing.T) {
	tx := Transaction{To: common.HexToAddress("0x2222222222222222222222222222222222222222"), Nonce: 1}
	a := common.HexToAddress("0x1111111111111111111111111111111111111111")
	b := common.HexToAddress("0x1111111111111111111111111111111111111112")
	if TransactionHash(84532, a, tx) == TransactionHash(8453, a, tx) {
		t.Error("hash ignores the chain id: a signature could be replayed across chains")
	}
	if TransactionHash(84532, a, tx) == TransactionHash(84532, b, tx) {
		t.Error("hash ignores the Safe address: a signature could be replayed across Safes")
	}
	next := tx
	next.Nonce = 2
	if TransactionHash(84532, a, tx) == TransactionHash(84532, a, next) {
		t.Error("hash ignores the nonce")
	}
}

func TestTransaction_Validate(t *testing.T) {
	if err := (Transaction{Value: big.NewInt(1)}).Validate(); err != nil {
		t.Errorf("valid transaction refused: %v", err)
	}
	if err := (Transaction{Operation: 2}).Validate(); err == nil {
		t.Error("operation 2 accepted")
	}
	if err := (Transaction{Value: big.NewInt(-1)}).Validate(); err == nil {
		t.Error("negative value accepted")
	}
	if err := (Transaction{GasPrice: new(big.Int).Lsh(big.NewInt(1), 256)}).Validate(); err == nil {
		t.Error("2^256 gas price accepted")
	}
}

func TestTokenTransfer_EncodesERC20Transfer(t *testing.T) {
	tx, err := TokenTransfer(common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3"),
		common.HexToAddress("0x70997970C51812dc3A010C7d01b50e0d17dc79C8"), big.NewInt(12_500_000), 7)
	if err != nil {
		t.Fatal(err)
	}
	want := "0xa9059cbb" +
		"00000000000000000000000070997970c51812dc3a010c7d01b50e0d17dc79c8" +
		"0000000000000000000000000000000000000000000000000000000000bebc20"
	if got := hexutil.Encode(tx.Data); got != want {
		t.Errorf("data = %s, want %s", got, want)
	}
	if tx.To != common.HexToAddress("0x5FbDB2315678afecb367f032d93F642f64180aa3") || tx.Operation != Call || tx.Nonce != 7 || tx.Value.Sign() != 0 {
		t.Errorf("unexpected transaction %+v", tx)
	}
	for _, amount := range []*big.Int{nil, big.NewInt(0), big.NewInt(-5)} {
		if _, err := TokenTransfer(tx.To, common.HexToAddress("0x01"), amount, 0); err == nil {
			t.Errorf("amount %v accepted", amount)
		}
	}
	if _, err := TokenTransfer(tx.To, common.Address{}, big.NewInt(1), 0); err == nil {
		t.Error("transfer to the zero address accepted")
	}
}
