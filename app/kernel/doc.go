// Package kernel is the small shared kernel of Corridor's use-case packages: the scope and
// tenant guard every use case starts with, list paging, the units of work that give each
// capability only its own view of the transaction (Units), the runner that gives every POST its one
// unit of work (prepare outside, apply inside, with the Idempotency-Key's record), prepared
// answers, in-transaction domain events, the job registration contract each capability implements for River, the
// per-environment chain lookup, the clock default and the check that a constructor got the
// ports it needs. It holds no capability's logic: a rule that only one capability uses lives
// in that capability's package.
package kernel
