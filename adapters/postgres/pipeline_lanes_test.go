package postgres_test

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
)

// TestPipeline_IdleLanesCountTheirWait: a lane that waits for units counts the wait while it
// waits, not only once a unit arrives, so the lanes' figures read between batches (a metrics
// scrape, a benchmark's snapshot) hold the idle time up to then. No unit is ever submitted here.
func TestPipeline_IdleLanesCountTheirWait(t *testing.T) {
	t.Parallel()
	p := newPipeDB(t, 0)
	s := p.pipeline(t, postgres.PipelineOptions{Lanes: 2})
	deadline := time.Now().Add(time.Minute)
	for {
		st := s.PipelineStats()
		if st.LaneWaitUnits > 0 && st.LaneTime >= st.LaneWaitUnits && st.Batches == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("idle lanes counted %v waiting for units (lane time %v, %d batches) after a minute; want their wait counted while they idle",
				st.LaneWaitUnits, st.LaneTime, st.Batches)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
