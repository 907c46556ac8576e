// Package wallets is the wallets capability: multisig Safe wallets (create, list, read with
// live balances), their deployment job, the sandbox faucet and its drip job, directory
// handles, the ledger mirror that posts every on-chain USDC transfer of a wallet into the
// ledger, and the question other capabilities ask of wallets: which ones a signer still owns.
package wallets
