// Package mirror is the ledger mirror: the indexer that posts every on-chain USDC Transfer log
// of a wallet into the ledger (card settlements from the issuer's clearing account), undoes
// what a reorg dropped, and catches a wallet's mirror up before a decision is made against it.
// It reads wallets; it never changes them.
package mirror
