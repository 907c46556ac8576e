package safe

import (
	"bytes"
	"crypto/ecdsa"
	"encoding/hex"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
)

// SignatureLength is r ‖ s ‖ v.
const SignatureLength = 65

// Signature is a 65-byte ECDSA signature r ‖ s ‖ v in Safe's layout, with v 27 or 28.
type Signature [SignatureLength]byte

// V is the recovery byte as sent (27 or 28 once parsed).
func (s Signature) V() byte { return s[64] }

// Hex is the 0x-prefixed lowercase hex form clients send.
func (s Signature) Hex() string { return "0x" + hex.EncodeToString(s[:]) }

// Problem names why a signature was refused, so the application can pick its response.
type Problem string

const (
	ProblemMalformed    Problem = "MALFORMED"     // not 0x + 130 hex digits, or r/s out of range
	ProblemRecoveryByte Problem = "RECOVERY_BYTE" // v is not 27 or 28 (and not an eth_sign v)
	ProblemEthSign      Problem = "ETH_SIGN"      // v is 31 or 32: Safe's eth_sign encoding
	ProblemPersonalSign Problem = "PERSONAL_SIGN" // recovers to an owner only with the EIP-191 prefix
	ProblemNotOwner     Problem = "NOT_OWNER"     // recovers to an address that is not an owner
)

// SignatureError explains a refused signature. It unwraps to a VALIDATION_FAILED error on the
// field "signature", so the HTTP layer renders it without knowing about signatures; errors.As
// gives the Problem (and Signer for NOT_OWNER) to callers that answer differently.
type SignatureError struct {
	Problem Problem
	Signer  common.Address // the recovered address, when recovery succeeded
	Message string
}

func (e *SignatureError) Error() string { return "signature: " + e.Message }

// Unwrap returns the domain validation error for the "signature" field.
func (e *SignatureError) Unwrap() error {
	err := core.Invalid("signature", e.Message).(*core.Error)
	return err.WithDetails(map[string]any{"reason": string(e.Problem)})
}

func refuse(problem Problem, format string, args ...any) *SignatureError {
	return &SignatureError{Problem: problem, Message: fmt.Sprintf(format, args...)}
}

// ParseSignature reads a 0x-prefixed 65-byte hex signature r ‖ s ‖ v and insists on v 27 or 28:
// the only form Safe's checkNSignatures verifies as a plain ECDSA signature over the raw hash.
// Safe reads v 0 as a contract signature, v 1 as a pre-approved hash and v > 30 as eth_sign,
// so a signature in any of those forms would mean something else on chain.
func ParseSignature(text string) (Signature, error) {
	var sig Signature
	digits, ok := strings.CutPrefix(text, "0x")
	if !ok {
		digits, ok = strings.CutPrefix(text, "0X")
	}
	if !ok {
		return sig, refuse(ProblemMalformed, "must be 0x-prefixed hex")
	}
	if len(digits) != 2*SignatureLength {
		return sig, refuse(ProblemMalformed, "must be 65 bytes (r ‖ s ‖ v, 130 hex digits), got %d hex digits", len(digits))
	}
	if _, err := hex.Decode(sig[:], []byte(digits)); err != nil {
		return sig, refuse(ProblemMalformed, "is not valid hex")
	}
	switch v := sig.V(); {
	case v == 27 || v == 28:
	case v == 31 || v == 32:
		return sig, refuse(ProblemEthSign, "v is %d, which Safe treats as an eth_sign (EIP-191 prefixed) signature; sign the raw 32-byte safeTxHash without a prefix so v is 27 or 28", v)
	case v == 0 || v == 1:
		return sig, refuse(ProblemRecoveryByte, "v is %d; Safe needs v = 27 or 28 (add 27 to the recovery id that raw secp256k1 signing returns)", v)
	default:
		return sig, refuse(ProblemRecoveryByte, "v is %d; it must be 27 or 28", v)
	}
	r, s := new(big.Int).SetBytes(sig[:32]), new(big.Int).SetBytes(sig[32:64])
	if !crypto.ValidateSignatureValues(sig.V()-27, r, s, false) {
		return sig, refuse(ProblemMalformed, "r or s is out of range")
	}
	return sig, nil
}

// Recover returns the address whose key produced sig over hash exactly as Safe's ecrecover
// path does for v 27/28: over the raw 32 bytes, with no prefix.
func Recover(hash common.Hash, sig Signature) (common.Address, error) {
	raw := sig
	raw[64] -= 27 // go-ethereum takes the recovery id 0/1
	pub, err := crypto.SigToPub(hash.Bytes(), raw[:])
	if err != nil {
		return common.Address{}, refuse(ProblemMalformed, "does not recover to any key: %v", err)
	}
	return crypto.PubkeyToAddress(*pub), nil
}

// prefixedHash is the EIP-191 personal_sign digest of a 32-byte hash.
func prefixedHash(hash common.Hash) common.Hash {
	return crypto.Keccak256Hash([]byte("\x19Ethereum Signed Message:\n32"), hash.Bytes())
}

// VerifyOwnerSignature parses text, recovers its signer over the raw hash and requires an owner.
// A signature that recovers to an owner only once the EIP-191 prefix is applied (what
// personal_sign and eth_sign produce) gets its own clear refusal: Safe would recover a
// different, non-owner address and revert the execution with GS026.
func VerifyOwnerSignature(hash common.Hash, text string, owners []common.Address) (common.Address, Signature, error) {
	sig, err := ParseSignature(text)
	if err != nil {
		return common.Address{}, sig, err
	}
	signer, err := Recover(hash, sig)
	if err != nil {
		return common.Address{}, sig, err
	}
	if isOwner(signer, owners) {
		return signer, sig, nil
	}
	if prefixedSigner, err := Recover(prefixedHash(hash), sig); err == nil && isOwner(prefixedSigner, owners) {
		e := refuse(ProblemPersonalSign, "was made with an EIP-191 prefix (personal_sign / signMessage) by owner %s; sign the raw 32-byte safeTxHash with no prefix", prefixedSigner.Hex())
		e.Signer = prefixedSigner
		return common.Address{}, sig, e
	}
	e := refuse(ProblemNotOwner, "recovers to %s, which is not an owner of this Safe", signer.Hex())
	e.Signer = signer
	return common.Address{}, sig, e
}

func isOwner(a common.Address, owners []common.Address) bool {
	for _, o := range owners {
		if o == a {
			return true
		}
	}
	return false
}

// OwnerSignature is a verified signature with the owner it recovers to.
type OwnerSignature struct {
	Signer    common.Address
	Signature Signature
}

// PackSignatures sorts signatures by signer address ascending and concatenates them, the layout
// Safe's checkNSignatures requires (it rejects a signer not greater than the previous one with
// GS026). A signer appearing twice is refused: Safe would reject it too.
func PackSignatures(signatures []OwnerSignature) ([]byte, error) {
	sorted := append([]OwnerSignature(nil), signatures...)
	sort.Slice(sorted, func(i, j int) bool { return bytes.Compare(sorted[i].Signer[:], sorted[j].Signer[:]) < 0 })
	packed := make([]byte, 0, len(sorted)*SignatureLength)
	for i, s := range sorted {
		if i > 0 && sorted[i-1].Signer == s.Signer {
			return nil, fmt.Errorf("safe: owner %s signed twice", s.Signer.Hex())
		}
		packed = append(packed, s.Signature[:]...)
	}
	return packed, nil
}

// Sign produces the signature an owner submits: raw secp256k1 over the 32-byte hash, no prefix,
// v = 27 or 28. Corridor never holds owner keys; tests and sandbox tooling use this to act as
// an owner would.
func Sign(hash common.Hash, key *ecdsa.PrivateKey) (Signature, error) {
	var sig Signature
	raw, err := crypto.Sign(hash.Bytes(), key)
	if err != nil {
		return sig, err
	}
	copy(sig[:], raw)
	sig[64] += 27
	return sig, nil
}
