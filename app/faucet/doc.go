// Package faucet is the sandbox faucet: drips of test USDC or ETH into a TEST wallet (rate
// limited per wallet and per tenant), the sandbox on-ramp's credits, and the drip job that
// sends each one at most once and confirms it. It reads wallets; it never changes them.
package faucet
