package main

import (
	"time"

	"github.com/corridorhq/corridor/bench/internal/proccpu"
)

// CPU accounting (bench/internal/proccpu): how much processor time PostgreSQL and the client
// (this process, or pgbench) spend per transfer. On a machine where both share two cores, this,
// not the WAL flush, is what bounds throughput.

func serverCPU(dataDir string) time.Duration { return proccpu.Server(dataDir) }
func selfCPU() time.Duration                 { return proccpu.Self() }

// perTransferMs is d spread over n transfers, in milliseconds (0 when unknown).
func perTransferMs(d time.Duration, n int) float64 {
	if d <= 0 || n == 0 {
		return 0
	}
	return round3(float64(d.Microseconds()) / 1000 / float64(n))
}
