//go:build cgo

package custody

import (
	"bytes"
	"context"
	"encoding/asn1"
	"errors"
	"fmt"
	"math/big"
	"sync"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/miekg/pkcs11"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

var _ ports.CustodySigner = (*PKCS11)(nil)

// PKCS11Config names the module, the token and its user PIN.
type PKCS11Config struct {
	ModulePath string // the vendor's PKCS#11 library, e.g. /usr/lib/softhsm/libsofthsm2.so
	TokenLabel string
	PIN        string
}

// PKCS11 keeps custody keys in an HSM: each key pair is generated on the token, its private
// half marked sensitive and not extractable, and signatures are made by the token (CKM_ECDSA
// over the 32-byte hash). One session serves every call, one at a time: an HSM session is not
// safe for concurrent operations, and custody signatures are few.
type PKCS11 struct {
	ctx     *pkcs11.Ctx
	session pkcs11.SessionHandle
	mu      sync.Mutex
}

// secp256k1OID is the curve's object identifier, DER-encoded as CKA_EC_PARAMS wants it.
var secp256k1OID = []byte{0x06, 0x05, 0x2b, 0x81, 0x04, 0x00, 0x0a}

// OpenPKCS11 loads the module, opens a session on the token labelled cfg.TokenLabel and logs in.
func OpenPKCS11(cfg PKCS11Config) (*PKCS11, error) {
	p := pkcs11.New(cfg.ModulePath)
	if p == nil {
		return nil, fmt.Errorf("custody: cannot load the PKCS#11 module %s", cfg.ModulePath)
	}
	if err := p.Initialize(); err != nil {
		return nil, fmt.Errorf("custody: PKCS#11 initialize: %w", err)
	}
	slot, err := findSlot(p, cfg.TokenLabel)
	if err != nil {
		p.Destroy()
		return nil, err
	}
	session, err := p.OpenSession(slot, pkcs11.CKF_SERIAL_SESSION|pkcs11.CKF_RW_SESSION)
	if err != nil {
		p.Destroy()
		return nil, fmt.Errorf("custody: PKCS#11 open session: %w", err)
	}
	if err := p.Login(session, pkcs11.CKU_USER, cfg.PIN); err != nil {
		_ = p.CloseSession(session)
		p.Destroy()
		return nil, fmt.Errorf("custody: PKCS#11 login: %w", err)
	}
	return &PKCS11{ctx: p, session: session}, nil
}

func findSlot(p *pkcs11.Ctx, label string) (uint, error) {
	slots, err := p.GetSlotList(true)
	if err != nil {
		return 0, fmt.Errorf("custody: PKCS#11 slots: %w", err)
	}
	for _, s := range slots {
		info, err := p.GetTokenInfo(s)
		if err == nil && info.Label == label {
			return s, nil
		}
	}
	return 0, fmt.Errorf("custody: no PKCS#11 token labelled %q", label)
}

// Close logs out and unloads the module.
func (h *PKCS11) Close() {
	h.mu.Lock()
	defer h.mu.Unlock()
	_ = h.ctx.Logout(h.session)
	_ = h.ctx.CloseSession(h.session)
	_ = h.ctx.Finalize()
	h.ctx.Destroy()
}

// Kind names the signer.
func (h *PKCS11) Kind() string { return "pkcs11" }

// CreateKey generates a secp256k1 key pair on the token under a fresh CKA_ID (the ref).
func (h *PKCS11) CreateKey(context.Context) (ports.CustodyKey, error) {
	ref := core.NewID("cky")
	id := []byte(ref)
	public := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PUBLIC_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_EC),
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
		pkcs11.NewAttribute(pkcs11.CKA_VERIFY, true),
		pkcs11.NewAttribute(pkcs11.CKA_EC_PARAMS, secp256k1OID),
		pkcs11.NewAttribute(pkcs11.CKA_ID, id),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, ref),
	}
	private := []*pkcs11.Attribute{
		pkcs11.NewAttribute(pkcs11.CKA_CLASS, pkcs11.CKO_PRIVATE_KEY),
		pkcs11.NewAttribute(pkcs11.CKA_KEY_TYPE, pkcs11.CKK_EC),
		pkcs11.NewAttribute(pkcs11.CKA_TOKEN, true),
		pkcs11.NewAttribute(pkcs11.CKA_PRIVATE, true),
		pkcs11.NewAttribute(pkcs11.CKA_SENSITIVE, true),
		pkcs11.NewAttribute(pkcs11.CKA_EXTRACTABLE, false),
		pkcs11.NewAttribute(pkcs11.CKA_SIGN, true),
		pkcs11.NewAttribute(pkcs11.CKA_ID, id),
		pkcs11.NewAttribute(pkcs11.CKA_LABEL, ref),
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	pub, _, err := h.ctx.GenerateKeyPair(h.session, []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_EC_KEY_PAIR_GEN, nil)}, public, private)
	if err != nil {
		return ports.CustodyKey{}, fmt.Errorf("custody: PKCS#11 key generation: %w", err)
	}
	addr, err := h.addressOf(pub)
	if err != nil {
		return ports.CustodyKey{}, err
	}
	return ports.CustodyKey{Ref: ref, Address: addr.Hex()}, nil
}

// addressOf reads a public key's CKA_EC_POINT (a DER OCTET STRING around 04 ‖ X ‖ Y) and
// answers its Ethereum address.
func (h *PKCS11) addressOf(pub pkcs11.ObjectHandle) (common.Address, error) {
	attrs, err := h.ctx.GetAttributeValue(h.session, pub, []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_EC_POINT, nil)})
	if err != nil || len(attrs) != 1 {
		return common.Address{}, fmt.Errorf("custody: PKCS#11 public point: %v", err)
	}
	point := attrs[0].Value
	var inner []byte
	if rest, err := asn1.Unmarshal(point, &inner); err == nil && len(rest) == 0 {
		point = inner
	}
	key, err := crypto.UnmarshalPubkey(point)
	if err != nil {
		return common.Address{}, fmt.Errorf("custody: PKCS#11 public point is not secp256k1: %w", err)
	}
	return crypto.PubkeyToAddress(*key), nil
}

// find answers the object of class with CKA_ID ref.
func (h *PKCS11) find(class uint, ref string) (pkcs11.ObjectHandle, error) {
	template := []*pkcs11.Attribute{pkcs11.NewAttribute(pkcs11.CKA_CLASS, class), pkcs11.NewAttribute(pkcs11.CKA_ID, []byte(ref))}
	if err := h.ctx.FindObjectsInit(h.session, template); err != nil {
		return 0, err
	}
	objects, _, err := h.ctx.FindObjects(h.session, 1)
	_ = h.ctx.FindObjectsFinal(h.session)
	if err != nil {
		return 0, err
	}
	if len(objects) == 0 {
		return 0, fmt.Errorf("custody: no PKCS#11 key %s", ref)
	}
	return objects[0], nil
}

// SignHash has the token sign the hash, then puts the answer in Ethereum's form: s made low
// (secp256k1's signatures are malleable; Safe and go-ethereum take the low one) and the
// recovery id found by recovering each candidate against the key's own address.
func (h *PKCS11) SignHash(_ context.Context, ref string, hash [32]byte) ([]byte, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	priv, err := h.find(pkcs11.CKO_PRIVATE_KEY, ref)
	if err != nil {
		return nil, err
	}
	pub, err := h.find(pkcs11.CKO_PUBLIC_KEY, ref)
	if err != nil {
		return nil, err
	}
	want, err := h.addressOf(pub)
	if err != nil {
		return nil, err
	}
	if err := h.ctx.SignInit(h.session, []*pkcs11.Mechanism{pkcs11.NewMechanism(pkcs11.CKM_ECDSA, nil)}, priv); err != nil {
		return nil, fmt.Errorf("custody: PKCS#11 sign init: %w", err)
	}
	rs, err := h.ctx.Sign(h.session, hash[:])
	if err != nil {
		return nil, fmt.Errorf("custody: PKCS#11 sign: %w", err)
	}
	return ethereumSignature(rs, hash, want)
}

// secp256k1N is the curve's order; halfN bounds a low s.
var (
	secp256k1N = crypto.S256().Params().N
	halfN      = new(big.Int).Rsh(secp256k1N, 1)
)

// ethereumSignature turns a raw r ‖ s (32 bytes each) into r ‖ low s ‖ v with v 27 or 28.
func ethereumSignature(rs []byte, hash [32]byte, signer common.Address) ([]byte, error) {
	if len(rs) != 64 {
		return nil, fmt.Errorf("custody: the token answered a %d-byte signature, want 64", len(rs))
	}
	s := new(big.Int).SetBytes(rs[32:])
	if s.Cmp(halfN) > 0 {
		s.Sub(secp256k1N, s)
	}
	sig := make([]byte, 65)
	copy(sig[:32], rs[:32])
	s.FillBytes(sig[32:64])
	for v := byte(0); v < 2; v++ {
		sig[64] = v
		pub, err := crypto.SigToPub(hash[:], sig)
		if err == nil && bytes.Equal(crypto.PubkeyToAddress(*pub).Bytes(), signer.Bytes()) {
			sig[64] = v + 27
			return sig, nil
		}
	}
	return nil, errors.New("custody: the token's signature recovers to neither candidate")
}
