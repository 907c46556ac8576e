package ledger

import (
	"slices"

	"github.com/corridorhq/corridor/core"
)

// Spec returns the request a transfer answers, as far as idempotency compares it: the derived
// asset and postings of a resolving transfer are left out, as its spec carries none.
func (t Transfer) Spec() TransferSpec {
	s := TransferSpec{
		Reference: t.Reference, Type: t.Type, Environment: t.Environment,
		PendingID: t.PendingID, ReversedID: t.ReversedID, Amount: t.Amount,
		ExpiresAt: t.ExpiresAt, Metadata: copyMetadata(t.Metadata),
	}
	if !t.Type.resolvesTarget() {
		s.Asset = t.Asset
		s.Postings = sortedPostings(t.Postings)
	}
	return s
}

// ReplayOrConflict decides a request whose reference is already recorded in its environment.
// When the request has the same content as the stored transfer, it is a replay: the stored
// transfer is the answer and nothing is written. Otherwise it is LEDGER_REFERENCE_CONFLICT.
//
// Content is: Environment, Type, Asset, PendingID, ReversedID, Amount and the postings as a set
// of (account, amount) pairs, in any order. The derived postings of a resolving transfer are
// not compared: they follow from its target, which is immutable. Not content: the generated ID
// and CreatedAt, ExpiresAt (a retry recomputes it from its own "now") and Metadata (an
// annotation that moves no money; a retry may carry a new request id in it).
//
// Calling it with a stored transfer of another reference or environment is a store bug, and
// panics.
func ReplayOrConflict(spec TransferSpec, stored Transfer) (Transfer, error) {
	if spec.Reference != stored.Reference || spec.Environment != stored.Environment {
		panic("ledger: ReplayOrConflict called with transfer " + stored.ID + " of another reference or environment")
	}
	if !sameContent(spec, stored.Spec()) {
		return Transfer{}, core.E(core.CodeLedgerReferenceConflict,
			"reference %s is already recorded as transfer %s with different content", spec.Reference, stored.ID).
			WithDetails(map[string]any{"reference": spec.Reference, "transferId": stored.ID})
	}
	return stored, nil
}

func sameContent(a, b TransferSpec) bool {
	return a.Environment == b.Environment && a.Type == b.Type && a.Asset == b.Asset &&
		a.PendingID == b.PendingID && a.ReversedID == b.ReversedID && a.Amount == b.Amount &&
		equalPostings(sortedPostings(a.Postings), sortedPostings(b.Postings))
}

func equalPostings(a, b []Posting) bool { return slices.Equal(a, b) }
