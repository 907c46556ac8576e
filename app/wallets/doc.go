// Package wallets is the wallets capability: multisig Safe wallets (create, list, read with
// live balances), their deployment job, custodial wallets, directory handles, wallet activity,
// and the question other capabilities ask of wallets: which ones a signer still owns. The
// sandbox faucet is app/faucet; the ledger mirror of on-chain transfers is app/mirror.
package wallets
