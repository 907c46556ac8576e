package kernel

import "errors"

// CommittedRefusal is a refusal whose unit of work committed what it wrote: a two-factor
// challenge created for the caller to approve, a payment recorded FAILED by policy. A use case
// that composes the refused step inside its own unit of work (a ramp, a bill's acceptance, an
// invoice's settlement) must commit too and answer the refusal, or the challenge the client is
// told to approve would vanish with its rollback.
type CommittedRefusal struct{ Err error }

func (c *CommittedRefusal) Error() string { return c.Err.Error() }

// Unwrap lets errors.As find the domain error inside, so the HTTP layer answers it as usual.
func (c *CommittedRefusal) Unwrap() error { return c.Err }

// Committed marks err as a refusal whose unit of work committed; nil stays nil.
func Committed(err error) error {
	if err == nil {
		return nil
	}
	return &CommittedRefusal{Err: err}
}

// IsCommitted reports whether err is, or wraps, a CommittedRefusal.
func IsCommitted(err error) bool {
	var c *CommittedRefusal
	return errors.As(err, &c)
}
