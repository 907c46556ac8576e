package kernel_test

import (
	"context"
	"errors"
	"testing"

	"github.com/riverqueue/river"

	"github.com/corridorhq/corridor/app/kernel"
)

func TestRelayerBump_EveryChainRunsAndFailuresAreReported(t *testing.T) {
	var ran []string
	failing := errors.New("node down")
	bump := &kernel.RelayerBump{Passes: []func(context.Context) error{
		func(context.Context) error { ran = append(ran, "first"); return failing },
		func(context.Context) error { ran = append(ran, "second"); return nil },
	}}
	if len(bump.PeriodicJobs()) != 1 {
		t.Fatal("the pass is not scheduled")
	}
	w := &kernel.RelayerBumpWorker{Bump: bump}
	err := w.Work(context.Background(), &river.Job[kernel.RelayerBumpArgs]{})
	if !errors.Is(err, failing) || len(ran) != 2 {
		t.Fatalf("ran %v, err %v", ran, err)
	}
	if len((&kernel.RelayerBump{}).PeriodicJobs()) != 0 {
		t.Fatal("a pass is scheduled without a relayer")
	}
}
