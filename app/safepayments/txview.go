package safepayments

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: Safe payments, the wallets they
// spend from, handles and members. A reader sees the capability's tables here; test/architecture
// checks that every repository the package asks a transaction for is listed.
type txView interface {
	Handles() ports.HandleRepo
	Members() ports.MemberRepo
	Payments() ports.PaymentRepo
	Wallets() ports.WalletRepo
}

var _ txView = ports.Tx(nil)
