package safepay

// Finalized is the domain event of a Safe payment reaching a final status (COMPLETED, FAILED,
// CANCELLED), raised in the unit of work that saves it, so a capability that proposed the
// payment (a treasury sweep) announces its own outcome in the same commit. It may be raised
// again for the same payment (a retried job): reactions must be idempotent.
type Finalized struct{ Payment Payment }
