package ports

import "context"

type laggingReadsKey struct{}

// WithLaggingReads marks ctx as a read that may be served a little behind the primary: a
// finance export, a statement, a console list, a secondary transaction list (docs/decisions/scaling.md).
// A Store with a read replica runs such a unit of work there while the replica's lag is within
// its bound; every other unit of work, and every unit past the bound, runs on the primary.
func WithLaggingReads(ctx context.Context) context.Context {
	return context.WithValue(ctx, laggingReadsKey{}, true)
}

// LaggingReadsAllowed reports whether ctx was marked by WithLaggingReads.
func LaggingReadsAllowed(ctx context.Context) bool {
	ok, _ := ctx.Value(laggingReadsKey{}).(bool)
	return ok
}

type aloneKey struct{}

// WithUnitAlone marks ctx as a short read that runs as its own transaction rather than in a
// store's commit pipeline (docs/ledger.md, "Commit pipeline"): a batch runs its units' statements one
// after the other on one connection, so a read that commits nothing (the API key lookup on a
// cache miss) would only hold the units behind it up; alone, it runs beside the batches on a
// pooled connection of its own.
func WithUnitAlone(ctx context.Context) context.Context {
	return context.WithValue(ctx, aloneKey{}, true)
}

// UnitAlone reports whether ctx was marked by WithUnitAlone.
func UnitAlone(ctx context.Context) bool {
	ok, _ := ctx.Value(aloneKey{}).(bool)
	return ok
}

type lastWriteKey struct{}

// WithLastWrite marks ctx for a use case's last write, one whose failure fails the whole request
// whatever unit of work it runs in (every caller up to the outermost unit returns the error, and
// nothing runs after it that could go on without it). A store may then hold the statement back
// and send it with the transaction's next exchange or its COMMIT, where its failure fails the
// transaction rather than the nested unit of work it ran in: no round trip of its own, and
// nothing acknowledged before the COMMIT that carries it returns (docs/ledger.md, "Commit
// pipeline").
func WithLastWrite(ctx context.Context) context.Context {
	return context.WithValue(ctx, lastWriteKey{}, true)
}

// LastWrite reports whether ctx was marked by WithLastWrite.
func LastWrite(ctx context.Context) bool {
	ok, _ := ctx.Value(lastWriteKey{}).(bool)
	return ok
}

type affinityKey struct{}

// WithAffinity names what ctx's units of work touch in common with others that carry the same
// key (the tenant whose rows they lock): a store's commit pipeline runs units of one key in one
// lane, so they share a batch (and its locks) instead of meeting each other's locks in another
// lane's batch and running again.
func WithAffinity(ctx context.Context, key string) context.Context {
	return context.WithValue(ctx, affinityKey{}, key)
}

// Affinity is the key ctx was marked with by WithAffinity ("" when none).
func Affinity(ctx context.Context) string {
	key, _ := ctx.Value(affinityKey{}).(string)
	return key
}
