package safepayments

import (
	"context"
	"errors"
	"strings"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// Bounds of destination resolution by email: the members and wallets of a tenant looked at.
const (
	paymentMemberPages     = 10 // pages of ports.MaxTake members
	paymentTenantWalletCap = 1000
)

// resolvedDestination is where a payment's USDC goes.
type resolvedDestination struct {
	address  string // EIP-55
	chainID  int64
	walletID string // "" for an address destination
}

// resolveDestination turns the destination union into an address on the source wallet's chain.
func (s *Service) resolveDestination(ctx context.Context, tx txView, p auth.Principal, source wallet.Wallet, d safepay.Destination) (resolvedDestination, error) {
	switch d.Type {
	case safepay.DestinationAddress:
		return resolvedDestination{address: d.Address, chainID: d.ChainID}, nil
	case safepay.DestinationWallet:
		w, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, d.WalletID)
		if err != nil {
			return resolvedDestination{}, unresolved(err, "destination.walletId", "WALLET_NOT_FOUND", "no wallet %s in this tenant and environment", d.WalletID)
		}
		return walletDestination(w), nil
	case safepay.DestinationHandle:
		h, err := tx.Handles().FindHandle(ctx, p.Environment, d.Handle)
		if err != nil {
			return resolvedDestination{}, unresolved(err, "destination.handle", "HANDLE_NOT_FOUND", "no handle %q in the directory of this environment", d.Handle)
		}
		w, err := tx.Wallets().FindWallet(ctx, h.TenantID, p.Environment, h.WalletID)
		if err != nil {
			return resolvedDestination{}, unresolved(err, "destination.handle", "WALLET_NOT_FOUND", "handle %q names a wallet that no longer exists", d.Handle)
		}
		return walletDestination(w), nil
	case safepay.DestinationEmail:
		return s.resolveEmail(ctx, tx, p, source, d.Email)
	}
	return resolvedDestination{}, core.Invalid("destination.type", "must be one of handle, email, address, wallet")
}

func walletDestination(w wallet.Wallet) resolvedDestination {
	return resolvedDestination{address: w.Address, chainID: w.ChainID, walletID: w.ID}
}

// resolveEmail finds the wallet of a member of the caller's tenant: an ACTIVE member with that
// email and a signer address, and the oldest wallet of this environment and chain (other than
// the source) whose owners include that signer.
func (s *Service) resolveEmail(ctx context.Context, tx txView, p auth.Principal, source wallet.Wallet, email string) (resolvedDestination, error) {
	member, err := findActiveMember(ctx, tx, p.TenantID, email)
	if err != nil {
		return resolvedDestination{}, err
	}
	if member == nil {
		return resolvedDestination{}, destinationError("destination.email", "EMAIL_NOT_A_MEMBER",
			"%s is not an active member of this tenant; pay an address or a handle instead", email)
	}
	if member.SignerAddress == "" {
		return resolvedDestination{}, destinationError("destination.email", "MEMBER_HAS_NO_SIGNER",
			"member %s has no signer address, so no wallet can be theirs", email)
	}
	wallets, err := tx.Wallets().ListTenantWallets(ctx, p.TenantID, p.Environment, paymentTenantWalletCap)
	if err != nil {
		return resolvedDestination{}, err
	}
	var found *wallet.Wallet
	for i, w := range wallets {
		if w.Environment != p.Environment || w.ChainID != source.ChainID || w.ID == source.ID || !w.HasOwner(member.SignerAddress) {
			continue
		}
		if found == nil || w.CreatedAt.Before(found.CreatedAt) {
			found = &wallets[i]
		}
	}
	if found == nil {
		return resolvedDestination{}, destinationError("destination.email", "MEMBER_HAS_NO_WALLET",
			"member %s (signer %s) owns no wallet of this tenant on chain %d other than the source", email, member.SignerAddress, source.ChainID)
	}
	return walletDestination(*found), nil
}

// findActiveMember pages through the tenant's members (bounded) for an ACTIVE one with email.
func findActiveMember(ctx context.Context, tx txView, tenantID, email string) (*tenant.Member, error) {
	for page := 0; page < paymentMemberPages; page++ {
		members, total, err := tx.Members().ListMembers(ctx, tenantID, ports.Page{Skip: page * ports.MaxTake, Take: ports.MaxTake})
		if err != nil {
			return nil, err
		}
		for i, m := range members {
			if m.Status == tenant.MemberActive && strings.EqualFold(m.Email, email) {
				return &members[i], nil
			}
		}
		if (page+1)*ports.MaxTake >= total {
			break
		}
	}
	return nil, nil
}

// unresolved turns a repository's not-found into DESTINATION_NOT_RESOLVED; other errors pass.
func unresolved(err error, field, reason, format string, args ...any) error {
	var de *core.Error
	if errors.As(err, &de) && strings.HasSuffix(string(de.Code), "_NOT_FOUND") {
		return destinationError(field, reason, format, args...)
	}
	return err
}

func destinationError(field, reason, format string, args ...any) error {
	return core.E(safepay.CodeDestinationNotResolved, format, args...).
		WithDetails(map[string]any{"field": field, "reason": reason})
}
