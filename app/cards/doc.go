// Package cards is the card capability (docs/api.md Cards, docs/decisions/cards.md): cards issued from a
// DEPLOYED wallet's Safe or for a cardholder, their limits and freeze, push-provisioning
// ephemeral keys, and sandbox authorizations decided in docs/decisions/cards.md's order that hold, capture and
// reverse on the ledger, with captured Safe spend settled on chain through the card spend
// module by a durable job.
package cards
