// Package claims is the pending-claims capability: a payment to a phone number nobody has
// verified yet opens a claim whose money waits in the project's claim-escrow contract. It holds
// the claim link and its phone challenge, the redeem into the recipient's tenant, the escrow
// jobs (fund, lock, release, refund, cancel), the escrow indexer with its reorg undo, and the
// expiry pass. The payment itself belongs to app/offramps, which claims reach through the
// Payments interface they declare; texts go through app/recipients' SMS outbox.
package claims
