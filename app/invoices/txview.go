package invoices

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: invoices and bills, the wallets and
// handles they are addressed to, and the Safe payments that settle them. A reader sees the
// capability's tables here; test/architecture checks that every repository the package asks a
// transaction for is listed.
type txView interface {
	Handles() ports.HandleRepo
	Invoices() ports.InvoiceRepo
	Payments() ports.PaymentRepo
	Wallets() ports.WalletRepo
}

var _ txView = ports.Tx(nil)
