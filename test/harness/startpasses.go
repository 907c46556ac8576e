package harness

import (
	"context"
	"testing"
)

// AwaitStartSweep waits until the platform-share sweep that the service runs once at start
// (finance.sweep_platform_shares, RunOnStart) has completed. A test that runs a server of its own
// and counts what the ledger or the store did (transfers to anchor, locking reads) calls it
// first, so that the sweep's transfers, whenever the job queue's leader gets to them, are never
// counted as the test's.
func (e *Env) AwaitStartSweep(t testing.TB) {
	t.Helper()
	Eventually(t, "the platform-share sweep run at start", func() bool {
		var done int
		err := e.Service.Store.DB().DB.QueryRowContext(context.Background(),
			`SELECT count(*) FROM river_job WHERE kind = 'finance.sweep_platform_shares' AND state = 'completed'`).Scan(&done)
		return err == nil && done > 0
	})
}
