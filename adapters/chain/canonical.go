package chain

import "github.com/ethereum/go-ethereum/common"

// Safe v1.4.1's canonical deployments (safe-deployments), at the same addresses on every chain
// that has them, Base and Base Sepolia included.
var canonicalSafeV141 = Addresses{
	SafeSingleton:    common.HexToAddress("0x29fcB43b46531BcA003ddC8FCB67FFE91900C762"), // SafeL2
	SafeProxyFactory: common.HexToAddress("0x4e1DCf7AD4e460CfD30791CCC4F9c8a4f820ec67"),
	FallbackHandler:  common.HexToAddress("0xfd0732Dc9E303f09fCEf3a7388Ad10A83459Ec99"),
}

// Circle's USDC on the public chains Corridor supports.
var circleUSDC = map[int64]common.Address{
	8453:  common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913"), // Base
	84532: common.HexToAddress("0x036CbD53842c5426634e7929541eC2318f3dCF7e"), // Base Sepolia
}

// CanonicalAddresses are the defaults for a public chain: Safe's canonical v1.4.1 contracts and
// Circle's USDC. ok is false for a chain without a known USDC. The sandbox's own dev chain
// shares Base Sepolia's id (84532) but not its contracts: it uses what DeployContracts recorded,
// so configuration, not the chain id, decides which set applies.
func CanonicalAddresses(chainID int64) (addrs Addresses, ok bool) {
	usdc, ok := circleUSDC[chainID]
	if !ok {
		return Addresses{}, false
	}
	addrs = canonicalSafeV141
	addrs.USDC = usdc
	return addrs, true
}
