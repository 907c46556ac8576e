package kernel

import "github.com/corridorhq/corridor/ports"

// ClockOrSystem returns c, or the wall clock when c is nil: production wires no clock, tests
// that travel in time wire their own.
func ClockOrSystem(c ports.Clock) ports.Clock {
	if c == nil {
		return ports.SystemClock{}
	}
	return c
}
