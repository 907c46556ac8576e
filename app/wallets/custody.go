package wallets

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// CustodyKeyRead is a custody key made for a wallet about to be created: ReadCustodyKey makes it
// outside any unit of work (the signer may be an HSM), CreateCustodialWallet uses it.
type CustodyKeyRead struct {
	tenantID string
	key      ports.CustodyKey
}

// ReadCustodyKey checks the caller may create wallets, then has the environment's custody signer
// make a fresh owner key. It must be called outside any unit of work. A key made for a request
// that then fails owns nothing and holds nothing; it stays unused in the signer.
func (s *Service) ReadCustodyKey(ctx context.Context, p auth.Principal) (CustodyKeyRead, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsWrite); err != nil {
		return CustodyKeyRead{}, err
	}
	signer := s.custody[p.Environment]
	if signer == nil {
		return CustodyKeyRead{}, core.E(wallet.CodeCustodyUnavailable,
			"custodial wallets are not available in %s: no custody signer is configured (LIVE needs an HSM, CUSTODY_PKCS11_MODULE); send owner_address to own the wallet yourself", p.Environment)
	}
	key, err := signer.CreateKey(ctx)
	if err != nil {
		return CustodyKeyRead{}, core.E(wallet.CodeCustodyUnavailable, "the custody signer did not make a key; retry shortly").Transient(core.RetryDependency)
	}
	return CustodyKeyRead{tenantID: p.TenantID, key: key}, nil
}

// CreateCustodialWallet creates a 1-of-1 Safe owned by the custody key read made: the service
// signs its payments (the Safe payments capability signs them after each proposal commits).
func (s *Service) CreateCustodialWallet(ctx context.Context, p auth.Principal, read CustodyKeyRead, name string) (wallet.Wallet, error) {
	if read.tenantID == "" || read.tenantID != p.TenantID {
		return wallet.Wallet{}, core.E(core.CodeInternal, "wallets: a custody key read for another caller")
	}
	threshold, label := 1, "custody"
	return s.CreateWallet(ctx, p, CreateWalletInput{
		Name: strings.TrimSpace(name), Threshold: &threshold,
		Owners:        []wallet.OwnerInput{{Address: read.key.Address, Role: "ADMIN_OWNER", Label: &label}},
		custodyKeyRef: read.key.Ref,
	})
}
