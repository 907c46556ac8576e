package safe

import (
	"bytes"
	"fmt"
	"math/big"
	"sort"
	"strings"

	"github.com/ethereum/go-ethereum/accounts/abi"
	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/corridorhq/corridor/core"
)

// MaxOwners bounds a Safe's owner list. Safe itself has no limit, but checkNSignatures loops
// over every signature on chain and our API lists owners inline.
const MaxOwners = 20

// sentinelOwner is Safe's SENTINEL_OWNERS (address(0x1)), which setup refuses as an owner.
var sentinelOwner = common.HexToAddress("0x0000000000000000000000000000000000000001")

// Config is what decides a new Safe's address: its owners, threshold, fallback handler and the
// salt nonce, together with the factory, singleton and proxy creation code (see Deployment).
type Config struct {
	Owners          []common.Address
	Threshold       int
	FallbackHandler common.Address
	SaltNonce       *big.Int
	// SetupTo and SetupData are setup's optional delegate call (zero and empty: none), e.g. a
	// module's enable-on-setup function. They are part of the initializer, so of the address.
	SetupTo   common.Address
	SetupData []byte
}

// Deployment names the contracts a Safe is created from on one chain.
type Deployment struct {
	Factory   common.Address // SafeProxyFactory
	Singleton common.Address // SafeL2 (the proxy's implementation)
	// ProxyCreationCode is SafeProxyFactory.proxyCreationCode(): SafeProxy's creation bytecode.
	// The adapter reads it from the deployed factory, so predictions match that factory.
	ProxyCreationCode []byte
}

// Validate applies the rules Safe's setup enforces (GS200–GS204) before anything is sent, so a
// bad request fails as a validation error instead of an on-chain revert: at least one owner,
// no zero or sentinel address, no duplicates, 1 ≤ threshold ≤ owners, at most MaxOwners.
func (c Config) Validate() error {
	problems := core.FieldErrors{}
	switch {
	case len(c.Owners) == 0:
		problems.Add("owners", "at least one owner is required")
	case len(c.Owners) > MaxOwners:
		problems.Add("owners", fmt.Sprintf("at most %d owners", MaxOwners))
	}
	seen := make(map[common.Address]bool, len(c.Owners))
	for i, owner := range c.Owners {
		field := fmt.Sprintf("owners[%d].address", i)
		switch {
		case owner == (common.Address{}) || owner == sentinelOwner:
			problems.Add(field, "is not a usable owner address")
		case seen[owner]:
			problems.Add(field, "duplicates another owner")
		}
		seen[owner] = true
	}
	if c.Threshold < 1 || c.Threshold > len(c.Owners) {
		problems.Add("threshold", fmt.Sprintf("must be between 1 and the number of owners (%d)", len(c.Owners)))
	}
	if c.SaltNonce == nil || c.SaltNonce.Sign() < 0 || c.SaltNonce.BitLen() > 256 {
		problems.Add("saltNonce", "must be a uint256")
	}
	return problems.Err()
}

// SortedOwners returns the owners in ascending address order. Corridor always encodes owners in
// this order, so the predicted address depends only on the owner set, never on the order a
// request or a database query listed them in: a deployment job that reloads a wallet cannot
// deploy to a different address than the one returned (and funded) at creation.
func SortedOwners(owners []common.Address) []common.Address {
	sorted := append([]common.Address(nil), owners...)
	sort.Slice(sorted, func(i, j int) bool { return bytes.Compare(sorted[i][:], sorted[j][:]) < 0 })
	return sorted
}

const setupABI = `[{"type":"function","name":"setup","stateMutability":"nonpayable","inputs":[
	{"name":"_owners","type":"address[]"},{"name":"_threshold","type":"uint256"},
	{"name":"to","type":"address"},{"name":"data","type":"bytes"},
	{"name":"fallbackHandler","type":"address"},{"name":"paymentToken","type":"address"},
	{"name":"payment","type":"uint256"},{"name":"paymentReceiver","type":"address"}],"outputs":[]}]`

var parsedSetupABI = mustParseABI(setupABI)

// Initializer is the calldata of Safe.setup that createProxyWithNonce runs on the new proxy:
// owners (sorted), threshold, the optional setup delegate call (SetupTo, SetupData; none when
// zero), the fallback handler,
// and no deployment payment (paymentToken, payment and paymentReceiver zero).
func Initializer(c Config) ([]byte, error) {
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return parsedSetupABI.Pack("setup",
		SortedOwners(c.Owners), big.NewInt(int64(c.Threshold)),
		c.SetupTo, setupData(c.SetupData),
		c.FallbackHandler, common.Address{}, new(big.Int), common.Address{})
}

func setupData(data []byte) []byte {
	if data == nil {
		return []byte{}
	}
	return data
}

// Salt is SafeProxyFactory's CREATE2 salt: keccak256(keccak256(initializer) ‖ uint256(saltNonce)).
func Salt(initializer []byte, saltNonce *big.Int) common.Hash {
	return crypto.Keccak256Hash(crypto.Keccak256(initializer), word(saltNonce))
}

// PredictAddress is the address SafeProxyFactory.createProxyWithNonce(singleton, initializer,
// saltNonce) deploys to: CREATE2 from the factory with Salt and the deployment code
// proxyCreationCode ‖ uint256(singleton). Funds sent there before deployment are the Safe's.
func PredictAddress(d Deployment, c Config) (common.Address, error) {
	if len(d.ProxyCreationCode) == 0 {
		return common.Address{}, fmt.Errorf("safe: proxy creation code is empty")
	}
	initializer, err := Initializer(c)
	if err != nil {
		return common.Address{}, err
	}
	code := append(append([]byte{}, d.ProxyCreationCode...), addressWord(d.Singleton)...)
	return crypto.CreateAddress2(d.Factory, Salt(initializer, c.SaltNonce), crypto.Keccak256(code)), nil
}

// SaltNonceFor derives a wallet's salt nonce from its id, so the address is a pure function of
// the wallet and a retried deployment always targets the same address.
func SaltNonceFor(walletID string) *big.Int {
	return new(big.Int).SetBytes(crypto.Keccak256([]byte("corridor:safe:" + walletID)))
}

func mustParseABI(s string) abi.ABI {
	parsed, err := abi.JSON(strings.NewReader(s))
	if err != nil {
		panic("safe: bad built-in ABI: " + err.Error())
	}
	return parsed
}
