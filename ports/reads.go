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
