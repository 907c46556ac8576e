package webhooks

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: events (the deliveries are its own
// tables behind EventRepo), and the members a triggered member.role_changed is about. A reader sees the capability's tables here; test/architecture checks
// that every repository the package asks a transaction for is listed.
type txView interface {
	Events() ports.EventRepo
	Members() ports.MemberRepo
}

var _ txView = ports.Tx(nil)
