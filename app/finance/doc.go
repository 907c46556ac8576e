// Package finance is the finance capability: a tenant's service balances, sandbox deposits
// into them, the ledger reports finance teams reconcile from (accounts, statements, the
// journal and its export, the trial balance) and the reconciliation of wallet ledger balances
// against the chain.
package finance
