// Package ledger is Corridor's double-entry engine: accounts, transfers, postings, two-phase
// holds and the invariants that keep them honest. It is pure rules: no I/O, no SQL, no clock.
// Every function takes what it needs as arguments and returns fresh values, so the Postgres
// store and the in-memory Book run the very same decisions.
//
// # Sign convention
//
// A posting amount is a signed int64 in base units of the transfer's asset (USDC: 6 decimals).
// An amount > 0 credits the account (its balance goes up); an amount < 0 debits it (its balance
// goes down). Every account uses the same direction, so the posted balances of all accounts of
// one environment and asset sum to exactly zero: money that entered from outside shows as a
// negative balance on a world or pool account. Amounts are never zero and never math.MinInt64,
// so negating one (for a reversal) can never overflow. Every sum is overflow-checked.
//
// # Transfers
//
//   - POSTED moves posted balances at once.
//   - PENDING is a two-phase hold between exactly one debited and one credited account: it
//     reserves the amount (the debited account's Available drops at once) without moving it.
//   - POST_PENDING finalises a hold once, in full or in part; a partial post releases the rest.
//   - VOID_PENDING releases a hold; it is the only way out of an expired hold.
//   - REVERSAL negates a POSTED or POST_PENDING transfer, once, as a new transfer.
//
// Transfers are immutable and hashed into a chain (CanonicalBytes, ChainHash, VerifyChain).
// What changes over time is a transfer's TransferState (PENDING → POSTED or VOIDED,
// POSTED → REVERSED), which is derivable from the history (Rebuild).
//
// # How a store uses this package
//
// Within one database transaction, for a TransferSpec:
//
//  1. Validate the spec (Apply does it too; doing it first avoids taking locks for nothing).
//  2. Look up the transfer with the same (environment, reference), which a unique index keeps
//     unique. If there is one, return ReplayOrConflict's answer: the stored transfer, or
//     LEDGER_REFERENCE_CONFLICT. Nothing is written.
//  3. For POST_PENDING, VOID_PENDING and REVERSAL, load the target transfer
//     (spec.TargetID()), its postings and its state with SELECT … FOR UPDATE on the transfer
//     row. Pass nil when it does not exist.
//  4. Lock the balance rows of InvolvedAccountIDs(spec, target) with SELECT … FOR UPDATE in
//     that (sorted) order, and load those accounts. Lock no other balance row. An id that has
//     no account row is simply left out of the maps: Apply answers ACCOUNT_NOT_FOUND.
//  5. Call Apply with the transaction's single "now" and a new transfer id. On error, roll
//     back: nothing may be written.
//  6. Insert Result.Transfer with Result.State and one row per posting, update every balance
//     row in Result.Balances, update the target's state from Result.Target, and append
//     ChainHash(previous hash, Result.Transfer) to the chain, locking the chain head last.
//
// Every transfer takes its locks in the same order (target transfer row, balance rows by
// account id, chain head), so concurrent transfers cannot deadlock. A unique violation on the
// (environment, reference) key means a concurrent twin committed first: roll back and start
// again at step 2, which then replays. Times are stored at microsecond precision, which is the
// precision Apply records and CanonicalBytes hashes. Book is the in-memory implementation of
// exactly these steps; Rebuild and Audit check stored rows against the history.
package ledger
