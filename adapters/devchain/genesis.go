package devchain

import (
	"context"
	"crypto/ecdsa"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"
)

const (
	relayerKeyFile = "relayer.key"
	genesisFile    = "genesis.json"
	// genesisGasLimit is the first block's gas limit; a Safe deployment and TestUSDC fit easily.
	genesisGasLimit = 30_000_000
)

// developerKey is go-ethereum's well-known dev-mode key (cmd/utils.DeveloperKey): geth --dev
// imports it as its developer account when the keystore is empty. The genesis funds it too, so
// a relayer key made after the chain (relayer.key deleted) can still be given gas money.
const developerKey = "b71c71a67e1177ad4e901695e1b4b9ee17ae16c6668d313eac2f96dbcda3f291"

// developerBalance is what the genesis gives the developer account: 1e9 ETH in wei.
var developerBalance = new(big.Int).Mul(big.NewInt(1_000_000_000), big.NewInt(1e18))

// loadOrCreateKey reads the relayer key, or makes one (0600) on the first run.
func loadOrCreateKey(path string) (*ecdsa.PrivateKey, error) {
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		key, err := crypto.GenerateKey()
		if err != nil {
			return nil, err
		}
		if err := writeFileAtomic(path, []byte(hex.EncodeToString(crypto.FromECDSA(key))+"\n"), 0o600); err != nil {
			return nil, fmt.Errorf("devchain: writing %s: %w", path, err)
		}
		return key, nil
	}
	if err != nil {
		return nil, fmt.Errorf("devchain: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return nil, fmt.Errorf("devchain: %w", err)
	}
	key, err := crypto.HexToECDSA(strings.TrimPrefix(strings.TrimSpace(string(raw)), "0x"))
	if err != nil {
		// The message never quotes the file: it holds a secret.
		return nil, fmt.Errorf("devchain: %s does not hold a hex secp256k1 private key; delete it to start a fresh dev chain", path)
	}
	return key, nil
}

// Genesis is the dev chain's genesis: geth's own dev-mode genesis (every fork active at block
// 0, merged, system contracts), with chain id 84532 and the relayer as the faucet account.
func Genesis(relayer common.Address) *core.Genesis {
	g := core.DeveloperGenesisBlock(genesisGasLimit, &relayer)
	config := *g.Config
	config.ChainID = big.NewInt(ChainID)
	g.Config = &config
	dev := crypto.PubkeyToAddress(mustKey(developerKey).PublicKey)
	g.Alloc[dev] = types.Account{Balance: developerBalance}
	return g
}

// initGenesis runs `geth init` with the dev genesis when the directory holds no chain yet.
func (c *Chain) initGenesis(ctx context.Context, binary string) error {
	if _, err := os.Stat(filepath.Join(c.dataDir, "geth", "chaindata")); err == nil {
		return nil
	}
	raw, err := json.MarshalIndent(Genesis(crypto.PubkeyToAddress(c.relayerKey.PublicKey)), "", "  ")
	if err != nil {
		return fmt.Errorf("devchain: genesis: %w", err)
	}
	path := filepath.Join(c.dataDir, genesisFile)
	if err := writeFileAtomic(path, raw, 0o644); err != nil {
		return fmt.Errorf("devchain: %w", err)
	}
	out, err := exec.CommandContext(ctx, binary, "init", "--datadir", c.dataDir, "--state.scheme", "hash", path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("devchain: geth init: %w\n%s", err, lastLines(string(out), logTailLines))
	}
	c.logf("devchain: initialised a chain with id %d in %s", ChainID, c.dataDir)
	return nil
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

func mustKey(hexKey string) *ecdsa.PrivateKey {
	key, err := crypto.HexToECDSA(hexKey)
	if err != nil {
		panic("devchain: bad built-in key: " + err.Error())
	}
	return key
}
