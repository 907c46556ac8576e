package custody_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"database/sql"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/uptrace/bun"
	"github.com/uptrace/bun/dialect/pgdialect"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/corridorhq/corridor/adapters/cipher"
	"github.com/corridorhq/corridor/adapters/custody"
	"github.com/corridorhq/corridor/core/safe"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/testdb"
	"github.com/corridorhq/corridor/wiring"
)

func TestMain(m *testing.M) { testdb.Main(m, nil) }

// signerContract is what every custody signer must do: keys that sign what they say, in the
// form Safe takes (r ‖ low s ‖ v 27/28 over the raw hash), with distinct keys per call, and
// refusals for keys it does not hold.
func signerContract(t *testing.T, s ports.CustodySigner) {
	ctx := context.Background()
	a, err := s.CreateKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.CreateKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if a.Ref == b.Ref || a.Address == b.Address || !common.IsHexAddress(a.Address) {
		t.Fatalf("keys %v and %v", a, b)
	}
	halfN := new(big.Int).Rsh(crypto.S256().Params().N, 1)
	for range 8 { // enough signatures that a high s from the token would show
		var hash [32]byte
		if _, err := rand.Read(hash[:]); err != nil {
			t.Fatal(err)
		}
		sig, err := s.SignHash(ctx, a.Ref, hash)
		if err != nil {
			t.Fatal(err)
		}
		if len(sig) != 65 || (sig[64] != 27 && sig[64] != 28) || new(big.Int).SetBytes(sig[32:64]).Cmp(halfN) > 0 {
			t.Fatalf("signature %x is not r ‖ low s ‖ v(27|28)", sig)
		}
		signer, _, err := safe.VerifyOwnerSignature(common.Hash(hash), "0x"+common.Bytes2Hex(sig), []common.Address{common.HexToAddress(a.Address)})
		if err != nil || signer != common.HexToAddress(a.Address) {
			t.Fatalf("the signature recovers to %s (%v), want %s", signer.Hex(), err, a.Address)
		}
	}
	if _, err := s.SignHash(ctx, "cky_unknown", [32]byte{1}); err == nil {
		t.Fatal("an unknown key signed")
	}
}

func TestKeystore_SignerContract(t *testing.T) {
	ctx := context.Background()
	url := testdb.NewDatabase(ctx, t)
	if _, err := wiring.Migrate(ctx, url); err != nil {
		t.Fatal(err)
	}
	sqldb, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	db := bun.NewDB(sqldb, pgdialect.New())
	t.Cleanup(func() { _ = db.Close() })
	secret := make([]byte, 32)
	if _, err := rand.Read(secret); err != nil {
		t.Fatal(err)
	}
	c, err := cipher.New(secret)
	if err != nil {
		t.Fatal(err)
	}
	ks := custody.NewKeystore(db, c)
	signerContract(t, ks)

	// The row holds the key sealed: no private key bytes in the clear, and it opens only
	// with the cipher.
	key, err := ks.CreateKey(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var sealed []byte
	if err := db.NewRaw(`SELECT sealed_key FROM custody_keys WHERE ref = ?`, key.Ref).Scan(ctx, &sealed); err != nil {
		t.Fatal(err)
	}
	other, _ := cipher.New(bytes.Repeat([]byte{7}, 32))
	if _, err := custody.NewKeystore(db, other).SignHash(ctx, key.Ref, [32]byte{1}); err == nil {
		t.Fatal("a key opened with another cipher")
	}
	if len(sealed) < 32 {
		t.Fatalf("sealed key of %d bytes", len(sealed))
	}
}

// softHSM starts a SoftHSM2 token in a temporary directory and answers its configuration. make
// test installs Debian's softhsm2 when missing and sets CORRIDOR_REQUIRE_SOFTHSM, so there a
// missing SoftHSM2 fails the test; elsewhere it skips.
func softHSM(t *testing.T) custody.PKCS11Config {
	t.Helper()
	module := "/usr/lib/softhsm/libsofthsm2.so"
	if m := os.Getenv("SOFTHSM2_MODULE"); m != "" {
		module = m
	}
	util, err := exec.LookPath("softhsm2-util")
	if _, statErr := os.Stat(module); err != nil || statErr != nil {
		if os.Getenv("CORRIDOR_REQUIRE_SOFTHSM") != "" {
			t.Fatalf("SoftHSM2 is required (make softhsm installs it): %v %v", err, statErr)
		}
		t.Skip("SoftHSM2 is not installed (make softhsm)")
	}
	dir := t.TempDir()
	conf := filepath.Join(dir, "softhsm2.conf")
	if err := os.Mkdir(filepath.Join(dir, "tokens"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, []byte("directories.tokendir = "+filepath.Join(dir, "tokens")+"\nobjectstore.backend = file\nlog.level = ERROR\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SOFTHSM2_CONF", conf)
	out, err := exec.Command(util, "--init-token", "--free", "--label", "corridor-test", "--pin", "1234", "--so-pin", "5678").CombinedOutput()
	if err != nil {
		t.Fatalf("softhsm2-util: %v: %s", err, out)
	}
	return custody.PKCS11Config{ModulePath: module, TokenLabel: "corridor-test", PIN: "1234"}
}

func TestPKCS11_SignerContractOnSoftHSM(t *testing.T) {
	cfg := softHSM(t)
	h, err := custody.OpenPKCS11(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	signerContract(t, h)

	if _, err := custody.OpenPKCS11(custody.PKCS11Config{ModulePath: cfg.ModulePath, TokenLabel: "no such token", PIN: "1234"}); err == nil {
		t.Fatal("a missing token opened")
	}
}
