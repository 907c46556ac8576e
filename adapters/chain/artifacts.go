package chain

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common/hexutil"

	"github.com/corridorhq/corridor/adapters/chain/bindings"
)

// ArtifactsDirEnv overrides where contract artifacts are read from (default: contracts/build
// under the module root).
const ArtifactsDirEnv = "CORRIDOR_CONTRACTS_DIR"

// errRunMakeContracts ends every "artifacts missing" error: the one fix is the build step.
const errRunMakeContracts = "run `make contracts` (it installs the pinned npm packages and writes contracts/build/)"

// Artifact is one compiled contract as contracts/build.js writes it.
type Artifact struct {
	ContractName string          `json:"contractName"`
	Source       string          `json:"source"`
	ABI          json.RawMessage `json:"abi"`
	Bytecode     hexutil.Bytes   `json:"bytecode"`
}

// Artifacts are the contracts the adapter deploys on a sandbox chain. Safe's bytecode comes
// from the pinned @safe-global/safe-contracts package at build time and is never committed;
// TestUSDC's, ClaimEscrow's and CardSpendModule's from our own sources compiled by the pinned solc.
type Artifacts struct {
	SafeL2                       Artifact
	SafeProxyFactory             Artifact
	CompatibilityFallbackHandler Artifact
	TestUSDC                     Artifact
	ClaimEscrow                  Artifact
	CardSpendModule              Artifact
	CheckoutDepositFactory       Artifact
}

// DefaultArtifactsDir is $CORRIDOR_CONTRACTS_DIR when set, else contracts/build in the nearest
// directory at or above the working directory whose go.mod declares the service's module (modulePath). Tests run
// in their package directory, so they find the module's build output without configuration.
func DefaultArtifactsDir() (string, error) {
	if dir := os.Getenv(ArtifactsDirEnv); dir != "" {
		return dir, nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if isCorridorModule(filepath.Join(dir, "go.mod")) {
			return filepath.Join(dir, "contracts", "build"), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("chain: no corridor module root above the working directory; set %s or %s", ArtifactsDirEnv, errRunMakeContracts)
		}
		dir = parent
	}
}

// modulePath is the service's module path, which names the repository root in a go.mod.
const modulePath = "github.com/corridorhq/corridor"

func isCorridorModule(goMod string) bool {
	content, err := os.ReadFile(goMod)
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(content), "\n") {
		if fields := strings.Fields(line); len(fields) == 2 && fields[0] == "module" {
			return strings.Trim(fields[1], `"`) == modulePath
		}
	}
	return false
}

// LoadArtifacts reads the six artifacts from dir and checks that each ABI matches the committed
// Go binding, so a binding left stale after a contract change fails at start-up, not mid-call.
func LoadArtifacts(dir string) (*Artifacts, error) {
	var arts Artifacts
	for _, entry := range []struct {
		name    string
		into    *Artifact
		binding *abi.ABI
	}{
		{"SafeL2", &arts.SafeL2, safeL2ABI()},
		{"SafeProxyFactory", &arts.SafeProxyFactory, proxyFactoryABI()},
		{"CompatibilityFallbackHandler", &arts.CompatibilityFallbackHandler, nil},
		{"TestUSDC", &arts.TestUSDC, usdcABI()},
		{"ClaimEscrow", &arts.ClaimEscrow, claimEscrowABI()},
		{"CardSpendModule", &arts.CardSpendModule, cardSpendModuleABI()},
		{"CheckoutDepositFactory", &arts.CheckoutDepositFactory, checkoutFactoryABI()},
	} {
		if err := readArtifact(dir, entry.name, entry.into); err != nil {
			return nil, err
		}
		if entry.binding != nil {
			if err := sameABI(entry.name, entry.into.ABI, entry.binding); err != nil {
				return nil, err
			}
		}
	}
	return &arts, nil
}

func readArtifact(dir, name string, into *Artifact) error {
	path := filepath.Join(dir, name+".json")
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("chain: contract artifact %s is missing: %s", path, errRunMakeContracts)
	}
	if err != nil {
		return fmt.Errorf("chain: reading %s: %w", path, err)
	}
	if err := json.Unmarshal(raw, into); err != nil {
		return fmt.Errorf("chain: %s is not a contract artifact (%v): %s", path, err, errRunMakeContracts)
	}
	if into.ContractName != name || len(into.Bytecode) == 0 {
		return fmt.Errorf("chain: %s holds %q without bytecode: %s", path, into.ContractName, errRunMakeContracts)
	}
	return nil
}

// sameABI compares the signatures of every method and event.
func sameABI(name string, artifactABI json.RawMessage, binding *abi.ABI) error {
	parsed, err := abi.JSON(bytes.NewReader(artifactABI))
	if err != nil {
		return fmt.Errorf("chain: %s ABI: %w", name, err)
	}
	if signatures(&parsed) != signatures(binding) {
		return fmt.Errorf("chain: the Go binding of %s does not match contracts/build; %s and commit adapters/chain/bindings", name, errRunMakeContracts)
	}
	return nil
}

func signatures(a *abi.ABI) string {
	var sigs []string
	for _, m := range a.Methods {
		sigs = append(sigs, m.Sig)
	}
	for _, e := range a.Events {
		sigs = append(sigs, "event "+e.Sig)
	}
	sort.Strings(sigs)
	return strings.Join(sigs, ";")
}

func safeL2ABI() *abi.ABI {
	a := bindings.NewSafeL2().GetABI()
	return &a
}

func proxyFactoryABI() *abi.ABI {
	a := bindings.NewSafeProxyFactory().GetABI()
	return &a
}

func usdcABI() *abi.ABI {
	a := bindings.NewTestUSDC().GetABI()
	return &a
}

func claimEscrowABI() *abi.ABI {
	a := bindings.NewClaimEscrow().GetABI()
	return &a
}

func cardSpendModuleABI() *abi.ABI {
	a := bindings.NewCardSpendModule().GetABI()
	return &a
}

func checkoutFactoryABI() *abi.ABI {
	a := bindings.NewCheckoutDepositFactory().GetABI()
	return &a
}
