// Package custody holds the custody signers (docs/decisions/wallets.md): owner keys the service signs Safe
// transactions with. The keystore keeps each private key sealed by the service cipher in
// PostgreSQL, for TEST and local runs; the PKCS#11 signer keeps keys in an HSM, the only kind
// LIVE accepts. Neither ever returns, logs or emits a private key.
package custody

import (
	"context"
	"crypto/ecdsa"
	"errors"
	"fmt"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

var _ ports.CustodySigner = (*Keystore)(nil)

// Keystore is the sealed-key signer. Its rows are written outside any unit of work (a custody
// key is made before the wallet that it will own), in a statement of their own.
type Keystore struct {
	db     bun.IDB
	cipher ports.Cipher
	now    func() time.Time
}

// NewKeystore keeps keys in db, sealed by cipher.
func NewKeystore(db bun.IDB, cipher ports.Cipher) *Keystore {
	return &Keystore{db: db, cipher: cipher, now: time.Now}
}

// Kind names the signer.
func (k *Keystore) Kind() string { return "keystore" }

// sealContext binds a sealed key to its ref and address: a row's ciphertext moved to another
// row does not open.
func sealContext(ref, address string) string { return "custody-key:" + ref + ":" + address }

// CreateKey makes a key, seals it and stores it.
func (k *Keystore) CreateKey(ctx context.Context) (ports.CustodyKey, error) {
	priv, err := crypto.GenerateKey()
	if err != nil {
		return ports.CustodyKey{}, fmt.Errorf("custody: generating a key: %w", err)
	}
	raw := crypto.FromECDSA(priv)
	defer clear(raw)
	key := ports.CustodyKey{Ref: core.NewID("cky"), Address: crypto.PubkeyToAddress(priv.PublicKey).Hex()}
	sealed, err := k.cipher.Encrypt(raw, sealContext(key.Ref, key.Address))
	if err != nil {
		return ports.CustodyKey{}, fmt.Errorf("custody: sealing a key: %w", err)
	}
	_, err = k.db.NewRaw(`INSERT INTO custody_keys (ref, address, sealed_key, created_at) VALUES (?, ?, ?, ?)`,
		key.Ref, key.Address, sealed, k.now().UTC()).Exec(ctx)
	if err != nil {
		return ports.CustodyKey{}, fmt.Errorf("custody: storing a key: %w", err)
	}
	return key, nil
}

// errUnknownKey answers a ref with no row.
var errUnknownKey = errors.New("custody: no such key")

// SignHash opens the key for one signature and forgets it.
func (k *Keystore) SignHash(ctx context.Context, ref string, hash [32]byte) ([]byte, error) {
	var row struct {
		Address string `bun:"address"`
		Sealed  []byte `bun:"sealed_key"`
	}
	if err := k.db.NewRaw(`SELECT address, sealed_key FROM custody_keys WHERE ref = ?`, ref).Scan(ctx, &row); err != nil {
		return nil, fmt.Errorf("%w %s: %v", errUnknownKey, ref, err)
	}
	raw, err := k.cipher.Decrypt(row.Sealed, sealContext(ref, row.Address))
	if err != nil {
		return nil, fmt.Errorf("custody: opening key %s: %w", ref, err)
	}
	defer clear(raw)
	priv, err := crypto.ToECDSA(raw)
	if err != nil {
		return nil, fmt.Errorf("custody: key %s is unreadable: %w", ref, err)
	}
	return signWith(priv, hash)
}

// signWith is go-ethereum's signature (low s, recovery id 0 or 1) in Safe's v 27/28 form.
func signWith(priv *ecdsa.PrivateKey, hash [32]byte) ([]byte, error) {
	sig, err := crypto.Sign(hash[:], priv)
	if err != nil {
		return nil, fmt.Errorf("custody: signing: %w", err)
	}
	sig[64] += 27
	return sig, nil
}
