package kernel

import "github.com/corridorhq/corridor/ports"

// ClampPage applies the list bounds of docs/architecture.md: a negative skip is 0, a skip is at most
// ports.MaxSkip (the HTTP layer refuses more with 400; this keeps any other caller from asking
// the database for a deep scan), and take is at most ports.MaxTake (a missing or out-of-range
// take is the maximum).
func ClampPage(p ports.Page) ports.Page {
	p.Skip = min(max(p.Skip, 0), ports.MaxSkip)
	if p.Take <= 0 || p.Take > ports.MaxTake {
		p.Take = ports.MaxTake
	}
	return p
}
