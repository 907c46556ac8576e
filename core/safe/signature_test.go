package safe

import (
	"bytes"
	"crypto/ecdsa"
	"errors"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
)

// Private keys 1, 2 and 3: well-known test keys with well-known addresses.
func testKey(t *testing.T, n byte) *ecdsa.PrivateKey {
	t.Helper()
	key, err := crypto.ToECDSA(common.LeftPadBytes([]byte{n}, 32))
	if err != nil {
		t.Fatal(err)
	}
	return key
}

var testHash = common.HexToHash("0xdfa6f0b6372cdb9e999c1b9b78ecc9c3d334b9ecabfc1cd4a6848d2d591e39f2")

func TestSign_FixedVector(t *testing.T) {
	key := testKey(t, 1)
	if got, want := crypto.PubkeyToAddress(key.PublicKey), common.HexToAddress("0x7E5F4552091A69125d5DfCb7b8C2659029395Bdf"); got != want {
		t.Fatalf("key 1 address = %s, want %s", got, want)
	}
	sig, err := Sign(testHash, key)
	if err != nil {
		t.Fatal(err)
	}
	// RFC 6979 signing is deterministic, so the signature is a fixed vector too.
	if got := sig.Hex(); got != fixedSignature {
		t.Errorf("signature = %s, want %s", got, fixedSignature)
	}
	signer, parsed, err := VerifyOwnerSignature(testHash, fixedSignature, []common.Address{crypto.PubkeyToAddress(key.PublicKey)})
	if err != nil {
		t.Fatal(err)
	}
	if signer != crypto.PubkeyToAddress(key.PublicKey) || parsed != sig || (parsed.V() != 27 && parsed.V() != 28) {
		t.Errorf("signer %s, v %d", signer, parsed.V())
	}
}

const fixedSignature = "0xf799212b05bba54fd424ccfccac413aff9769922e6180b9f1645ce4f4bddd41a67ccb7b2b1fdfed283eab74933b731f09c403687a7333bee67daaf7a45a13d601b"

func signatureProblem(t *testing.T, err error) *SignatureError {
	t.Helper()
	var sigErr *SignatureError
	if !errors.As(err, &sigErr) {
		t.Fatalf("err = %v, want a *SignatureError", err)
	}
	if !errors.Is(err, core.ErrValidation) {
		t.Errorf("err = %v does not match core.ErrValidation", err)
	}
	var domainErr *core.Error
	if !errors.As(err, &domainErr) {
		t.Fatal("no *core.Error in the chain")
	}
	if _, ok := domainErr.Details["fields"].(map[string]any)["signature"]; !ok || domainErr.Details["reason"] != string(sigErr.Problem) {
		t.Errorf("details = %v, want fields.signature and reason %s", domainErr.Details, sigErr.Problem)
	}
	return sigErr
}

func TestParseSignature_Refusals(t *testing.T) {
	good, err := Sign(testHash, testKey(t, 1))
	if err != nil {
		t.Fatal(err)
	}
	withV := func(v byte) string { s := good; s[64] = v; return s.Hex() }
	zeroR := good
	copy(zeroR[:32], make([]byte, 32))
	cases := map[string]struct {
		text    string
		problem Problem
		mention string
	}{
		"no 0x prefix":       {strings.TrimPrefix(good.Hex(), "0x"), ProblemMalformed, "0x"},
		"64 bytes":           {good.Hex()[:130], ProblemMalformed, "65 bytes"},
		"66 bytes":           {good.Hex() + "00", ProblemMalformed, "65 bytes"},
		"not hex":            {"0x" + strings.Repeat("zz", 65), ProblemMalformed, "hex"},
		"empty":              {"", ProblemMalformed, "0x"},
		"v 0 (raw recid)":    {withV(0), ProblemRecoveryByte, "add 27"},
		"v 1 (raw recid)":    {withV(1), ProblemRecoveryByte, "add 27"},
		"v 29":               {withV(29), ProblemRecoveryByte, "27 or 28"},
		"v 31 (eth_sign)":    {withV(31), ProblemEthSign, "eth_sign"},
		"v 32 (eth_sign)":    {withV(32), ProblemEthSign, "eth_sign"},
		"r zero":             {zeroR.Hex(), ProblemMalformed, "out of range"},
		"v 255":              {withV(255), ProblemRecoveryByte, "27 or 28"},
		"upper-case 0X form": {"0X" + strings.TrimPrefix(withV(2), "0x"), ProblemRecoveryByte, "27 or 28"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := ParseSignature(c.text)
			sigErr := signatureProblem(t, err)
			if sigErr.Problem != c.problem || !strings.Contains(sigErr.Message, c.mention) {
				t.Errorf("problem %s %q, want %s mentioning %q", sigErr.Problem, sigErr.Message, c.problem, c.mention)
			}
		})
	}
	if _, err := ParseSignature(strings.ToUpper(good.Hex()[2:])); err == nil {
		t.Error("signature without prefix accepted")
	}
	if sig, err := ParseSignature("0x" + strings.ToUpper(good.Hex()[2:])); err != nil || sig != good {
		t.Errorf("upper-case hex refused: %v", err)
	}
}

func TestVerifyOwnerSignature_PersonalSignIsRefusedClearly(t *testing.T) {
	owner := testKey(t, 1)
	owners := []common.Address{crypto.PubkeyToAddress(owner.PublicKey), crypto.PubkeyToAddress(testKey(t, 2).PublicKey)}
	// What personal_sign / signMessage(hash) produces: a signature over the EIP-191 digest.
	personal, err := Sign(prefixedHash(testHash), owner)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = VerifyOwnerSignature(testHash, personal.Hex(), owners)
	sigErr := signatureProblem(t, err)
	if sigErr.Problem != ProblemPersonalSign || sigErr.Signer != owners[0] || !strings.Contains(sigErr.Message, "no prefix") {
		t.Errorf("got %s (%s) %q", sigErr.Problem, sigErr.Signer, sigErr.Message)
	}
}

func TestVerifyOwnerSignature_NonOwner(t *testing.T) {
	stranger := testKey(t, 9)
	sig, _ := Sign(testHash, stranger)
	_, _, err := VerifyOwnerSignature(testHash, sig.Hex(), []common.Address{crypto.PubkeyToAddress(testKey(t, 1).PublicKey)})
	sigErr := signatureProblem(t, err)
	if sigErr.Problem != ProblemNotOwner || sigErr.Signer != crypto.PubkeyToAddress(stranger.PublicKey) {
		t.Errorf("got %s (%s)", sigErr.Problem, sigErr.Signer)
	}
}

func TestVerifyOwnerSignature_SignatureOverAnotherHash(t *testing.T) {
	owner := testKey(t, 1)
	sig, _ := Sign(common.HexToHash("0x01"), owner)
	_, _, err := VerifyOwnerSignature(testHash, sig.Hex(), []common.Address{crypto.PubkeyToAddress(owner.PublicKey)})
	if sigErr := signatureProblem(t, err); sigErr.Problem != ProblemNotOwner {
		t.Errorf("got %s", sigErr.Problem)
	}
}

func TestPackSignatures_SortsBySignerAscending(t *testing.T) {
	var signed []OwnerSignature
	for _, n := range []byte{1, 2, 3} {
		key := testKey(t, n)
		sig, err := Sign(testHash, key)
		if err != nil {
			t.Fatal(err)
		}
		signed = append(signed, OwnerSignature{Signer: crypto.PubkeyToAddress(key.PublicKey), Signature: sig})
	}
	packed, err := PackSignatures(signed)
	if err != nil {
		t.Fatal(err)
	}
	if len(packed) != 3*SignatureLength {
		t.Fatalf("packed %d bytes", len(packed))
	}
	// Recover each 65-byte slot and check the signers ascend, as checkNSignatures requires.
	var previous common.Address
	for i := 0; i < 3; i++ {
		var sig Signature
		copy(sig[:], packed[i*SignatureLength:])
		signer, err := Recover(testHash, sig)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Compare(signer[:], previous[:]) <= 0 {
			t.Fatalf("slot %d signer %s does not ascend after %s", i, signer, previous)
		}
		previous = signer
	}
	if _, err := PackSignatures(append(signed, signed[0])); err == nil {
		t.Error("a duplicate signer was packed")
	}
	if empty, err := PackSignatures(nil); err != nil || len(empty) != 0 {
		t.Errorf("PackSignatures(nil) = %x, %v", empty, err)
	}
}
