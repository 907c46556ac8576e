package postgres

import (
	"fmt"
	"math"
)

// int64Column converts a chain quantity (a Safe nonce, a block number) to the bigint column
// that stores it. A chain this service talks to never reaches 2^63, so a larger value is a
// programming error, not an operating one.
func int64Column(v uint64) int64 {
	if v > math.MaxInt64 {
		panic(fmt.Sprintf("postgres: %d does not fit a bigint column", v))
	}
	return int64(v)
}

// uint64Column reads a chain quantity back; a negative value means the row was written by
// something other than this service and is refused like any invalid row.
func uint64Column(name string, v int64) (uint64, error) {
	if v < 0 {
		return 0, fmt.Errorf("postgres: column %s holds %d, below zero", name, v)
	}
	return uint64(v), nil
}
