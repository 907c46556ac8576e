package invoice

import (
	"math/big"
	"strings"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
)

// Verification is a bill's verification status.
type Verification string

// Verification statuses of docs/api.md. UNVERIFIED is only seen while checking is pending.
const (
	Unverified Verification = "UNVERIFIED"
	Verified   Verification = "VERIFIED"
	Failed     Verification = "FAILED"
)

// Valid reports whether v is a known status.
func (v Verification) Valid() bool { return v == Unverified || v == Verified || v == Failed }

// Reasons a bill FAILED verification.
const (
	ReasonBadSignature   = "SIGNATURE_INVALID"
	ReasonSignerMismatch = "SIGNER_MISMATCH"
	ReasonNotMember      = "SIGNER_NOT_ACTIVE_MEMBER"
	ReasonExpired        = "SIGNATURE_EXPIRED"
	ReasonNonceReplayed  = "NONCE_REPLAYED"
)

// DecisionAccepted is the payer's acceptance of a bill.
const DecisionAccepted = "ACCEPTED"

// Bill is a verifiable bill one tenant sent another.
type Bill struct {
	ID                      string
	Environment             core.Environment
	SenderTenantID          string
	PayerTenantID           string
	AmountBaseUnits         int64
	PayerAddress            string
	PayeeAddress            string
	PayeeName               string
	Description             string
	ChainID                 int64
	SenderAddress           string
	Signature               string
	SigNonce                string
	SigExpiresAt            time.Time
	DocHash                 string
	DomainChainID           int64
	DomainVerifyingContract string
	VerificationStatus      Verification
	FailureReason           string
	PayerDecision           string
	PayerPaymentID          string
	CreatedAt               time.Time
}

// Authorization is the typed data of a bill: InvoiceAuthorization under the Corridor domain.
type Authorization struct {
	DomainChainID     int64
	VerifyingContract common.Address
	Payer, Payee      common.Address
	Amount            *big.Int // USDC base units
	Nonce             *big.Int
	ExpiresAt         *big.Int // unix seconds
	DocHash           common.Hash
}

// EIP-712 type strings of docs/decisions/invoices.md.
const (
	domainType        = "EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)"
	authorizationType = "InvoiceAuthorization(address payer,address payee,uint256 amount,uint256 nonce,uint256 expiresAt,bytes32 docHash)"
	DomainName        = "Corridor"
	DomainVersion     = "1"
)

var (
	domainTypeHash        = crypto.Keccak256Hash([]byte(domainType))
	authorizationTypeHash = crypto.Keccak256Hash([]byte(authorizationType))
)

// DomainSeparator is hashStruct(EIP712Domain) of the Corridor domain on chainID.
func DomainSeparator(chainID int64, verifyingContract common.Address) common.Hash {
	return crypto.Keccak256Hash(domainTypeHash[:], crypto.Keccak256([]byte(DomainName)), crypto.Keccak256([]byte(DomainVersion)),
		word(big.NewInt(chainID)), common.LeftPadBytes(verifyingContract[:], 32))
}

// StructHash is hashStruct(InvoiceAuthorization).
func (a Authorization) StructHash() common.Hash {
	return crypto.Keccak256Hash(authorizationTypeHash[:], common.LeftPadBytes(a.Payer[:], 32), common.LeftPadBytes(a.Payee[:], 32),
		word(a.Amount), word(a.Nonce), word(a.ExpiresAt), a.DocHash[:])
}

// Digest is the EIP-712 digest a signer signs: keccak256(0x1901 ‖ domainSeparator ‖ structHash).
func (a Authorization) Digest() common.Hash {
	sep := DomainSeparator(a.DomainChainID, a.VerifyingContract)
	s := a.StructHash()
	return crypto.Keccak256Hash([]byte{0x19, 0x01}, sep[:], s[:])
}

// word is v as a 32-byte big-endian uint256 (callers pass values already checked to fit).
func word(v *big.Int) []byte {
	if v == nil {
		v = new(big.Int)
	}
	return common.LeftPadBytes(v.Bytes(), 32)
}

// Recover returns the address that signed digest: 65 bytes r ‖ s ‖ v with v 27/28 (0/1 also
// accepted, as some libraries emit them).
func Recover(digest common.Hash, signature string) (common.Address, error) {
	raw, err := decodeHex(signature)
	if err != nil || len(raw) != 65 {
		return common.Address{}, core.Invalid("signature", "must be 0x followed by 130 hex digits (r ‖ s ‖ v)")
	}
	sig := append([]byte(nil), raw...)
	if sig[64] >= 27 {
		sig[64] -= 27
	}
	if sig[64] > 1 {
		return common.Address{}, core.Invalid("signature", "has an invalid recovery id v")
	}
	pub, err := crypto.SigToPub(digest[:], sig)
	if err != nil {
		return common.Address{}, core.Invalid("signature", "does not recover to a key")
	}
	return crypto.PubkeyToAddress(*pub), nil
}

func decodeHex(s string) ([]byte, error) {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "0x") && !strings.HasPrefix(s, "0X") {
		return nil, core.Invalid("signature", "must start with 0x")
	}
	return common.FromHex(s), validHex(s[2:])
}

func validHex(s string) error {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return core.Invalid("signature", "must be hex")
		}
	}
	return nil
}

// maxUint256 bounds nonce values.
var maxUint256 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 256), big.NewInt(1))

// ParseNonce parses sigNonce: a uint256 as a decimal string.
func ParseNonce(s string) (*big.Int, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, core.Invalid("sigNonce", "is required")
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return nil, core.Invalid("sigNonce", "must be a uint256 as a decimal string")
		}
	}
	n, ok := new(big.Int).SetString(s, 10)
	if !ok || n.Cmp(maxUint256) > 0 || len(s) > 78 {
		return nil, core.Invalid("sigNonce", "must be a uint256 as a decimal string")
	}
	return n, nil
}

// Check is what verification decides from the recovered signer, the sender's active members'
// signer addresses and the clock; the nonce's single use is enforced by the store.
func Check(claimedSender, recovered common.Address, activeSigner bool, expiresAt, now time.Time) (Verification, string) {
	switch {
	case recovered != claimedSender:
		return Failed, ReasonSignerMismatch
	case !activeSigner:
		return Failed, ReasonNotMember
	case !now.Before(expiresAt):
		return Failed, ReasonExpired
	}
	return Verified, ""
}
