package jobs

import (
	"context"
	"errors"

	"github.com/riverqueue/river"
	"github.com/riverqueue/river/rivertype"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

var _ ports.JobRetrier = (*Inserter)(nil)

// RetryJob makes a retryable or discarded job available now (River adds an attempt to a job
// that used them all). Any other state is refused: a completed job's work happened, a running
// or waiting one needs nothing.
func (q *Inserter) RetryJob(ctx context.Context, id int64) error {
	job, err := q.client.JobGet(ctx, id)
	if errors.Is(err, river.ErrNotFound) {
		return core.NotFound(core.CodeJobNotFound, "job")
	}
	if err != nil {
		return err
	}
	if job.State != rivertype.JobStateRetryable && job.State != rivertype.JobStateDiscarded {
		return core.E(core.CodeInvalidState, "job %d is %s: only a retryable or discarded job is retried", id, job.State).
			WithDetails(map[string]any{"jobId": id, "state": string(job.State)})
	}
	_, err = q.client.JobRetry(ctx, id)
	return err
}
