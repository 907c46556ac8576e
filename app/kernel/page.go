package kernel

import "corridor/ports"

// ClampPage applies the list bounds of DESIGN.md §4: a negative skip is 0, and take is at most
// ports.MaxTake (a missing or out-of-range take is the maximum).
func ClampPage(p ports.Page) ports.Page {
	if p.Skip < 0 {
		p.Skip = 0
	}
	if p.Take <= 0 || p.Take > ports.MaxTake {
		p.Take = ports.MaxTake
	}
	return p
}
