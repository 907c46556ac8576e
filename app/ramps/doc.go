// Package ramps is the sandbox ramps capability (docs/api.md Ramp; Endpoints, Ramps): a simulated
// on-ramp credits a wallet's Safe on chain from the platform test pool through the wallets
// capability's faucet job; an off-ramp proposes a Safe payment from the wallet to the platform
// liquidation address through the Safe payments capability. A ramp's status is read from the
// linked drip or payment, which are durable, so no job of its own moves it. TEST only.
package ramps
