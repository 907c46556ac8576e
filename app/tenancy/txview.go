package tenancy

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: tenants, members, API keys, and the
// wallets a signer owns. A reader sees the capability's tables here; test/architecture checks that
// every repository the package asks a transaction for is listed.
type txView interface {
	APIKeys() ports.APIKeyRepo
	Members() ports.MemberRepo
	Tenants() ports.TenantRepo
	Wallets() ports.WalletRepo
}

var _ txView = ports.Tx(nil)
