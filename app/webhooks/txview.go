package webhooks

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: events (the deliveries are its own
// tables behind EventRepo), and the members a triggered member.role_changed is about. A reader sees
// the capability's tables here, and its units of work receive only this view (kernel.Units), so the
// compiler refuses a repository it does not list.
type txView interface {
	Events() ports.EventRepo
	Members() ports.MemberRepo
}

// narrow is the one place a unit's whole transaction becomes this package's view: the
// compiler checks that it has every method the view lists.
func narrow(tx ports.Tx) txView { return tx }
