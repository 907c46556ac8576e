package finance

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: the ledger and its reports, the
// wallets and the chain index the reconciliation reads. A reader sees the capability's tables here;
// test/architecture checks that every repository the package asks a transaction for is listed.
type txView interface {
	ChainIndex() ports.ChainIndexRepo
	Ledger() ports.LedgerRepo
	LedgerReports() ports.LedgerReports
	Wallets() ports.WalletRepo
}

var _ txView = ports.Tx(nil)
