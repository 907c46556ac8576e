package invoice

import (
	"math/big"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/common/hexutil"
	"github.com/ethereum/go-ethereum/common/math"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/ethereum/go-ethereum/signer/core/apitypes"
)

// typedData builds the bill's typed data independently, as a wallet library would.
func typedData(a Authorization) apitypes.TypedData {
	chain := math.HexOrDecimal256(*big.NewInt(a.DomainChainID))
	return apitypes.TypedData{
		Types: apitypes.Types{
			"EIP712Domain": {{Name: "name", Type: "string"}, {Name: "version", Type: "string"}, {Name: "chainId", Type: "uint256"}, {Name: "verifyingContract", Type: "address"}},
			"InvoiceAuthorization": {{Name: "payer", Type: "address"}, {Name: "payee", Type: "address"}, {Name: "amount", Type: "uint256"},
				{Name: "nonce", Type: "uint256"}, {Name: "expiresAt", Type: "uint256"}, {Name: "docHash", Type: "bytes32"}},
		},
		PrimaryType: "InvoiceAuthorization",
		Domain:      apitypes.TypedDataDomain{Name: "Corridor", Version: "1", ChainId: &chain, VerifyingContract: a.VerifyingContract.Hex()},
		Message: apitypes.TypedDataMessage{
			"payer": a.Payer.Hex(), "payee": a.Payee.Hex(), "amount": a.Amount.String(), "nonce": a.Nonce.String(),
			"expiresAt": a.ExpiresAt.String(), "docHash": hexutil.Encode(a.DocHash[:]),
		},
	}
}

func sampleAuthorization() Authorization {
	nonce, _ := new(big.Int).SetString("115792089237316195423570985008687907853269984665640564039457584007913129639935", 10)
	return Authorization{DomainChainID: 84532, VerifyingContract: common.HexToAddress("0x00000000000000000000000000000000000000aa"),
		Payer: common.HexToAddress("0x1111111111111111111111111111111111111111"), Payee: common.HexToAddress("0x2222222222222222222222222222222222222222"),
		Amount: big.NewInt(12_500_000), Nonce: nonce, ExpiresAt: big.NewInt(1_900_000_000), DocHash: crypto.Keccak256Hash([]byte("terms"))}
}

// TestAuthorization_DigestMatchesGoEthereum: our digest equals apitypes.TypedDataAndHash for
// the same typed data, with a zero and a non-zero verifying contract.
func TestAuthorization_DigestMatchesGoEthereum(t *testing.T) {
	for _, vc := range []common.Address{{}, common.HexToAddress("0x00000000000000000000000000000000000000aa")} {
		a := sampleAuthorization()
		a.VerifyingContract = vc
		want, _, err := apitypes.TypedDataAndHash(typedData(a))
		if err != nil {
			t.Fatal(err)
		}
		if got := a.Digest(); got != common.BytesToHash(want) {
			t.Fatalf("digest %s, go-ethereum %x", got.Hex(), want)
		}
	}
}

// TestAuthorization_IndependentSignerVerifies: a signature made with go-ethereum's crypto over
// the digest go-ethereum computed recovers to the signer; another domain does not.
func TestAuthorization_IndependentSignerVerifies(t *testing.T) {
	key, _ := crypto.GenerateKey()
	signer := crypto.PubkeyToAddress(key.PublicKey)
	a := sampleAuthorization()
	digest, _, err := apitypes.TypedDataAndHash(typedData(a))
	if err != nil {
		t.Fatal(err)
	}
	sig, err := crypto.Sign(digest, key)
	if err != nil {
		t.Fatal(err)
	}
	sig[64] += 27
	got, err := Recover(a.Digest(), hexutil.Encode(sig))
	if err != nil || got != signer {
		t.Fatalf("recovered %s, %v; want %s", got.Hex(), err, signer.Hex())
	}
	now := time.Unix(1_800_000_000, 0)
	if v, r := Check(signer, got, true, time.Unix(a.ExpiresAt.Int64(), 0), now); v != Verified || r != "" {
		t.Fatalf("check: %s %s", v, r)
	}
	other := a
	other.DomainChainID = 1
	wrong, err := Recover(other.Digest(), hexutil.Encode(sig))
	if err != nil || wrong == signer {
		t.Fatalf("another domain recovered the signer: %v", err)
	}
	if v, r := Check(signer, wrong, true, time.Unix(a.ExpiresAt.Int64(), 0), now); v != Failed || r != ReasonSignerMismatch {
		t.Fatalf("wrong domain: %s %s", v, r)
	}
	if v, r := Check(signer, got, false, time.Unix(a.ExpiresAt.Int64(), 0), now); v != Failed || r != ReasonNotMember {
		t.Fatalf("not a member: %s %s", v, r)
	}
	if v, r := Check(signer, got, true, now, now); v != Failed || r != ReasonExpired {
		t.Fatalf("expired: %s %s", v, r)
	}
}

func TestParseNonce(t *testing.T) {
	for _, s := range []string{"", "-1", "0x10", "1.5", "115792089237316195423570985008687907853269984665640564039457584007913129639936"} {
		if _, err := ParseNonce(s); err == nil {
			t.Errorf("ParseNonce(%q) accepted", s)
		}
	}
	if n, err := ParseNonce("42"); err != nil || n.Int64() != 42 {
		t.Fatalf("42: %v %v", n, err)
	}
}
