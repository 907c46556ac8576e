package recipients

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work the recipients capability touches: its own tables
// (aliases, credentials, destinations, the SMS outbox and the alias budget). Its units of work
// receive only this view (kernel.Units), so the compiler refuses a repository it does not list;
// the recipient.Changed reactions it raises narrow the same unit of work to their own views.
type txView interface {
	Recipients() ports.RecipientRepo
}

// narrow is the one place a unit's whole transaction becomes this package's view: the
// compiler checks that it has every method the view lists.
func narrow(tx ports.Tx) txView { return tx }
