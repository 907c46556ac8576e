package postgres

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/corridorhq/corridor/ports"
)

// TestQueueFor: a unit without an affinity joins the shared queue; one with an affinity joins
// one lane's queue, always the same for the same key, and keys spread over the lanes.
func TestQueueFor(t *testing.T) {
	p := &pipeline{queue: make(chan *pipeUnit)}
	for range 2 {
		p.lanes = append(p.lanes, make(chan *pipeUnit))
	}
	if p.queueFor(context.Background()) != p.queue {
		t.Fatal("no affinity: want the shared queue")
	}
	used := map[chan *pipeUnit]bool{}
	for i := range 32 {
		ctx := ports.WithAffinity(context.Background(), fmt.Sprintf("ten_%d", i))
		q := p.queueFor(ctx)
		if q == p.queue || q != p.queueFor(ctx) {
			t.Fatalf("key %d: want one lane's queue, the same each time", i)
		}
		used[q] = true
	}
	if len(used) != 2 {
		t.Fatalf("32 keys used %d lanes, want both", len(used))
	}
	one := &pipeline{queue: p.queue, lanes: p.lanes[:1]}
	if one.queueFor(ports.WithAffinity(context.Background(), "ten_x")) != p.queue {
		t.Fatal("one lane: want the shared queue")
	}
}

// TestEnqueue_AStuckLaneHoldsNoOneUp: a unit with an affinity joins its lane when the lane takes
// it, and when the lane is stuck in a batch (nothing receives from it) the unit goes to the
// shared queue after its patience, where another lane takes it.
func TestEnqueue_AStuckLaneHoldsNoOneUp(t *testing.T) {
	p := &pipeline{queue: make(chan *pipeUnit), stop: make(chan struct{}), metrics: newPipelineMetrics()}
	for range 2 {
		p.lanes = append(p.lanes, make(chan *pipeUnit))
	}
	ctx := ports.WithAffinity(context.Background(), "ten_stuck")
	lane := p.queueFor(ctx)
	got := make(chan string, 1)
	go func() {
		select {
		case <-lane:
			got <- "lane"
		case <-p.queue:
			got <- "shared"
		}
	}()
	if err := p.enqueue(ctx, &pipeUnit{}); err != nil {
		t.Fatal(err)
	}
	if where := <-got; where != "lane" {
		t.Fatalf("a free lane's unit went to the %s queue", where)
	}
	go func() { <-p.queue; got <- "shared" }() // the lane is stuck: only the other lanes take
	if err := p.enqueue(ctx, &pipeUnit{}); err != nil {
		t.Fatal(err)
	}
	if where := <-got; where != "shared" {
		t.Fatalf("a stuck lane's unit went to the %s queue", where)
	}
}

// TestEnqueue_OnCitusNoLaneRunsAlone: on Citus a unit that no lane takes (every lane stuck in a
// batch waiting on a silent worker) is told to run alone after its patience instead of waiting
// for a lane; elsewhere it waits for a lane until its context ends.
func TestEnqueue_OnCitusNoLaneRunsAlone(t *testing.T) {
	for _, citus := range []bool{true, false} {
		p := &pipeline{queue: make(chan *pipeUnit), stop: make(chan struct{}), metrics: newPipelineMetrics(), citus: citus,
			opts: PipelineOptions{AffinityPatience: time.Millisecond}}
		p.lanes = append(p.lanes, make(chan *pipeUnit), make(chan *pipeUnit))
		ctx, cancel := context.WithCancel(ports.WithAffinity(context.Background(), "ten_stuck"))
		if !citus {
			cancel() // nothing else would end the wait
		}
		err := p.enqueue(ctx, &pipeUnit{ctx: ctx})
		cancel()
		switch {
		case citus && !errors.Is(err, errNoLane):
			t.Errorf("on Citus: %v, want errNoLane", err)
		case !citus && !errors.Is(err, context.Canceled):
			t.Errorf("on PostgreSQL: %v, want the context's end", err)
		}
	}
}
