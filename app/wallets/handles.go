package wallets

import (
	"context"
	"fmt"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// PutHandleInput is the body of PUT /v1/directory/handle.
type PutHandleInput struct {
	Handle      string
	WalletID    string
	DisplayName *string
}

// HandleView is a handle with the wallet it names (docs/api.md HandleInfo).
type HandleView struct {
	Handle ports.Handle
	Wallet wallet.Wallet
}

// PutHandle claims a directory handle for one of the caller's wallets, or re-points the
// caller's own handle (PUT replaces: an omitted displayName clears it). Handles are global per
// environment; one held by another tenant is HANDLE_TAKEN. verified stays false: no
// verification flow exists yet. A handle is the tenant's public name, where other tenants and
// the off-ramp send money: an agent key never claims or re-points it, or it could route the
// tenant's incoming payments to its own wallet.
func (s *Service) PutHandle(ctx context.Context, p auth.Principal, in PutHandleInput) (HandleView, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeWalletsWrite); err != nil {
		return HandleView{}, err
	}
	if p.AgentID != "" {
		return HandleView{}, core.E(core.CodeInsufficientScope,
			"an agent key cannot claim or re-point the tenant's directory handle: it names where others pay the tenant").
			WithDetails(map[string]any{"agentId": p.AgentID})
	}
	errs := core.FieldErrors{}
	handle, err := wallet.ParseHandle(in.Handle)
	if err != nil {
		errs.Add("handle", err.Error())
	}
	walletID := strings.TrimSpace(in.WalletID)
	if walletID == "" {
		errs.Add("walletId", "is required")
	}
	displayName := ""
	if in.DisplayName != nil {
		displayName = strings.TrimSpace(*in.DisplayName)
		if len(displayName) > wallet.MaxHandleDisplayName {
			errs.Add("displayName", fmt.Sprintf("must be at most %d characters", wallet.MaxHandleDisplayName))
		} else if why := core.TextProblem(displayName); why != "" {
			errs.Add("displayName", why)
		}
	}
	if err := errs.Err(); err != nil {
		return HandleView{}, err
	}
	var out HandleView
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		w, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, walletID)
		if err != nil {
			return err
		}
		now := s.clock.Now()
		h, err := tx.Handles().PutHandle(ctx, ports.Handle{Environment: p.Environment, Handle: handle, TenantID: p.TenantID,
			WalletID: w.ID, DisplayName: displayName, CreatedAt: now, UpdatedAt: now})
		out = HandleView{Handle: h, Wallet: w}
		return err
	})
	return out, err
}
