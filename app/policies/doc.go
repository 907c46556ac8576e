// Package policy is the spend-policy capability: versioned policies, their attachments to
// wallets and service balances, the evaluate dry run, and the enforcement gates the payment
// capabilities ask before money moves (per POLICY_ENFORCEMENT: off, log or enforce). The
// domain rules (documents, compilation, evaluation) are core/policy's; this package runs them
// as use cases and records every decision.
package policies
