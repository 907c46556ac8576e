package postgres_test

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/ports"
)

// TestInTx_EveryUnitRunsUnderADeadline: a unit of work started without a deadline runs under
// the store's default one and its caller is recorded (directly and through the pipeline), so
// the black-box suites, which fail on any recorded site (harness), fail on a caller that gives
// none. A unit whose caller gave a deadline keeps it and is not recorded; a nested unit runs
// under its outer unit's.
func TestInTx_EveryUnitRunsUnderADeadline(t *testing.T) {
	direct := lazyStore(t)
	var got time.Time
	var nestedHas bool
	sites, earlier := ownSites() // an earlier run of this test in the process (-count) counted too
	start := time.Now()
	for _, store := range []*postgres.Store{direct, direct.WithPipeline(postgres.PipelineOptions{Lanes: 1})} {
		// Through the pipeline the unit runs in its batch's context; the caller's deadline ends
		// the caller's wait, and a batch whose callers all left gives up
		// (TestPipeline_AbandonedBatchGivesUp), so only the recording is checked there.
		err := store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
			if store == direct {
				got, _ = ctx.Deadline()
				return store.InTx(ctx, func(ctx context.Context, tx ports.Tx) error { _, nestedHas = ctx.Deadline(); return nil })
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if got.IsZero() || got.Sub(start) > postgres.DefaultUnitDeadline+time.Second || !nestedHas {
		t.Fatalf("a unit without a caller's deadline ran until %v (nested has one: %v), want within %v", got, nestedHas, postgres.DefaultUnitDeadline)
	}
	if n, count := ownSites(); n != 1 || (sites > 0 && n != sites) || count != earlier+2 {
		t.Fatalf("the test's own call site: %d sites counted %d times in all (%d before this run) in %v, want one site counted twice more",
			n, count, earlier, postgres.UnitsWithoutDeadline())
	}
	if err := postgres.ErrUnitsWithoutDeadline(); err != nil {
		t.Fatalf("a unit a test started itself counted as the service's: %v", err)
	}
	before := len(postgres.UnitsWithoutDeadline())
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	want, _ := ctx.Deadline()
	if err := direct.InTx(ctx, func(ctx context.Context, tx ports.Tx) error {
		if got, _ := ctx.Deadline(); !got.Equal(want) {
			t.Errorf("the caller's deadline %v became %v", want, got)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if after := len(postgres.UnitsWithoutDeadline()); after != before {
		t.Fatalf("a unit with a deadline was recorded: %v", postgres.UnitsWithoutDeadline())
	}
}

// ownSites counts the recorded call sites in TestInTx_EveryUnitRunsUnderADeadline and the units
// they started in all ("<site> ×<n>").
func ownSites() (sites, units int) {
	for _, site := range postgres.UnitsWithoutDeadline() {
		if !strings.Contains(site, "TestInTx_EveryUnitRunsUnderADeadline") {
			continue
		}
		sites++
		if i := strings.LastIndex(site, "×"); i >= 0 {
			n, _ := strconv.Atoi(site[i+len("×"):])
			units += n
		}
	}
	return sites, units
}
