package recipient

import "github.com/corridorhq/corridor/core"

// Changed is the domain event of a change on a recipient's side that can release payments
// held for it: a phone alias verified, its business-identity credential set, a payout
// destination added. The recipients capability raises it inside the unit of work that made
// the change (and prepares it before, outside any transaction); the off-ramp payments
// capability reacts by re-running the composer for the recipient's held payments, so the
// recipients capability needs no reference back to payments.
type Changed struct {
	Environment core.Environment
	TenantID    string
}
