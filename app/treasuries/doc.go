// Package treasury is the treasury capability: accounts of bucket Safes with target shares,
// the live view of their balances and drift, rules that propose sweeps between buckets (a
// River job runs them), manual sweeps, and simulated yield booked on the ledger (docs/architecture.md
// docs/decisions/treasury.md). Treasury is sandbox only.
package treasuries
