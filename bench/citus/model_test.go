package main

import (
	"math"
	"testing"
	"time"
)

// TestCapacity_TheModelsFormula: the model is T(N) = min(K/c, N·K/w) for Citus and K/p for one
// PostgreSQL server, bounded by the workers until N* = w/c and by the coordinator after; a
// tier that costs nothing bounds nothing; the workers' time per transfer is their sum.
func TestCapacity_TheModelsFormula(t *testing.T) {
	for _, tc := range []struct {
		n         int
		c, w      float64
		want      float64
		wantBound string
	}{
		{n: 1, c: 0.1, w: 1, want: 8_000, wantBound: "workers"},
		{n: 4, c: 0.1, w: 1, want: 32_000, wantBound: "workers"},
		{n: 16, c: 0.1, w: 1, want: 80_000, wantBound: "coordinator"},
		{n: 2, c: 2, w: 0, want: 4_000, wantBound: "coordinator"},
		{n: 2, c: 0, w: 0.5, want: 32_000, wantBound: "workers"},
	} {
		got, bound := capacity(8, tc.n, tc.c, tc.w)
		if math.Abs(got-tc.want) > 1e-6 || bound != tc.wantBound {
			t.Errorf("capacity(8, %d, %v, %v) = %v %s, want %v %s", tc.n, tc.c, tc.w, got, bound, tc.want, tc.wantBound)
		}
	}
	if got := postgresCapacity(8, 2); got != 4_000 {
		t.Errorf("one PostgreSQL server of 8 cores at 2 ms per transfer: %v, want 4000", got)
	}
	if got := saturation(0.1, 1); math.Abs(got-10) > 1e-9 {
		t.Errorf("N* = w/c = %v, want 10", got)
	}
	if !math.IsInf(saturation(0, 1), 1) || !math.IsInf(postgresCapacity(8, 0), 1) {
		t.Errorf("a tier that costs nothing must bound nothing")
	}
	s := split{service: 3 * time.Second, coordinator: time.Second, workers: []time.Duration{2 * time.Second, 4 * time.Second}}
	if a, c, w := s.perTransfer(1000); a != 3 || c != 1 || w != 6 {
		t.Errorf("per transfer of %+v over 1000 transfers: a %v c %v w %v, want 3 1 6", s, a, c, w)
	}
}
