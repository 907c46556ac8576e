package ramps

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/ramp"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
)

// Input is the body of POST /v1/ramps.
type Input struct {
	WalletID  string
	Direction string
	Amount    string
	Provider  *string
	// TwofaChallengeID completes the two-factor handshake of an off-ramp's Safe payment, as on
	// POST /v1/payments.
	TwofaChallengeID string
}

// View is a ramp with its linked drip's or payment's state as it stands now.
type View struct {
	Ramp          ramp.Ramp
	Status        ramp.Status
	TxHash        string
	PaymentStatus string
	FiatRef       string
	FailureReason string
}

// Read is a validated ramp with, for an off-ramp, what the chain said for its payment; read
// before the unit of work that records it.
type Read struct {
	tenantID string
	request  ramp.Request
	payment  PaymentRead
}

// ReadRamp validates a ramp request and, for an off-ramp, reads the chain for its payment. It
// runs outside any unit of work. An on-ramp over the per-transaction cap is refused here.
func (s *Service) ReadRamp(ctx context.Context, p auth.Principal, in Input) (Read, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeRampsWrite); err != nil {
		return Read{}, err
	}
	req, err := ramp.ParseRequest(in.WalletID, in.Direction, in.Amount, in.Provider)
	if err != nil {
		return Read{}, err
	}
	var chainID int64
	if err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		w, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, req.WalletID)
		if err != nil {
			return err
		}
		chainID = w.ChainID
		// An agent ramps only its own wallet, in either direction.
		return kernel.RequireAgentWallet(ctx, tx.Agents(), p, w.ID)
	}); err != nil {
		return Read{}, err
	}
	out := Read{tenantID: p.TenantID, request: req}
	if req.Direction == ramp.DirectionOn {
		return out, s.limits.CheckAmount(req.AmountBaseUnits)
	}
	pr := s.offRampRequest(req, chainID)
	pr.TwofaChallengeID = strings.TrimSpace(in.TwofaChallengeID)
	out.payment, err = s.payments.ReadRampPayment(ctx, kernel.Acting(p, auth.ScopePaymentsCreate), pr)
	return out, err
}

// offRampRequest is the Safe payment an off-ramp links to: USDC from the wallet's Safe to the
// platform liquidation address.
func (s *Service) offRampRequest(req ramp.Request, chainID int64) safepay.Request {
	return safepay.Request{SourceWalletID: req.WalletID,
		Destination: &safepay.DestinationInput{Type: "address", Address: s.liquidation, ChainID: &chainID},
		AmountValue: core.FormatUSD(req.AmountBaseUnits), AmountAsset: "usdc",
		Memo: "sandbox off-ramp (" + req.Provider + ")"}
}

// CreateRamp records the ramp in one unit of work. An on-ramp takes the tenant's cap lock,
// counts the last 24 hours, and records the drip that credits the Safe (SUBMITTED until the
// mint is mined). An off-ramp records its Safe payment (AWAITING_SIGNATURE): nothing moves
// until the wallet's owners sign it.
func (s *Service) CreateRamp(ctx context.Context, p auth.Principal, read Read) (View, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeRampsWrite); err != nil {
		return View{}, err
	}
	if read.tenantID != p.TenantID {
		return View{}, core.E(core.CodeInternal, "ramps: a ramp read for another tenant")
	}
	req := read.request
	var out View
	var refused error
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		refused = nil
		now := s.clock.Now().UTC()
		r := ramp.Ramp{ID: core.NewID(core.PrefixRamp), TenantID: p.TenantID, Environment: p.Environment,
			WalletID: req.WalletID, Direction: req.Direction, Provider: req.Provider, AmountBaseUnits: req.AmountBaseUnits,
			CreatedAt: now}
		if req.Direction == ramp.DirectionOn {
			if err := s.checkDailyCap(ctx, tx, p, req.AmountBaseUnits); err != nil {
				return err
			}
			d, err := s.credits.CreditFromPool(ctx, kernel.Acting(p, auth.ScopeWalletsFund), req.WalletID, req.AmountBaseUnits)
			if err != nil {
				return err
			}
			r.DripID = d.ID
			out = onView(r, string(d.Status), d.TxHash, d.FailureReason)
		} else {
			pay, err := read.payment(ctx, kernel.Acting(p, auth.ScopePaymentsCreate))
			if kernel.IsCommitted(err) {
				// The two-factor challenge outlives the refusal; no ramp is recorded.
				refused = err
				return nil
			}
			if err != nil {
				return err
			}
			r.PaymentID = pay.ID
			out = offView(r, pay)
		}
		return tx.Ramps().CreateRamp(ctx, r)
	})
	if err == nil && refused != nil {
		return View{}, refused
	}
	return out, err
}

func (s *Service) checkDailyCap(ctx context.Context, tx txView, p auth.Principal, amount int64) error {
	if err := tx.Ramps().LockOnRampCap(ctx, p.TenantID, p.Environment); err != nil {
		return err
	}
	used, err := tx.Ramps().OnRampTotalSince(ctx, p.TenantID, p.Environment, s.clock.Now().Add(-ramp.DailyWindow))
	if err != nil {
		return err
	}
	return s.limits.CheckDaily(used, amount)
}

// GetRamp returns one of the caller's ramps with its live status.
func (s *Service) GetRamp(ctx context.Context, p auth.Principal, id string) (View, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeRampsRead); err != nil {
		return View{}, err
	}
	var out View
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		r, err := tx.Ramps().FindRamp(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		if err != nil {
			return err
		}
		out, err = view(ctx, tx, r)
		return err
	})
	return out, err
}

// ListRamps lists the caller's ramps, newest first, optionally of one wallet (which must be
// the caller's: WALLET_NOT_FOUND otherwise).
func (s *Service) ListRamps(ctx context.Context, p auth.Principal, walletID string, page ports.Page) ([]View, int, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeRampsRead); err != nil {
		return nil, 0, err
	}
	var out []View
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		walletID = strings.TrimSpace(walletID)
		if walletID != "" {
			if _, err := tx.Wallets().FindWallet(ctx, p.TenantID, p.Environment, walletID); err != nil {
				return err
			}
		}
		rows, n, err := tx.Ramps().ListRamps(ctx, ports.RampFilter{TenantID: p.TenantID, Environment: p.Environment, WalletID: walletID}, kernel.ClampPage(page))
		if err != nil {
			return err
		}
		out, total = make([]View, len(rows)), n
		for i, r := range rows {
			if out[i], err = view(ctx, tx, r); err != nil {
				return err
			}
		}
		return nil
	})
	return out, total, err
}

// view reads the ramp's linked drip or payment.
func view(ctx context.Context, tx txView, r ramp.Ramp) (View, error) {
	if r.Direction == ramp.DirectionOn {
		d, err := tx.Drips().FindDrip(ctx, r.TenantID, r.Environment, r.DripID)
		if err != nil {
			return View{}, err
		}
		return onView(r, string(d.Status), d.TxHash, d.FailureReason), nil
	}
	pay, err := tx.Payments().FindPayment(ctx, r.TenantID, r.Environment, r.PaymentID)
	if err != nil {
		return View{}, err
	}
	return offView(r, pay), nil
}

func onView(r ramp.Ramp, dripStatus, txHash, reason string) View {
	st := ramp.LiveStatus(ramp.DirectionOn, dripStatus)
	return View{Ramp: r, Status: st, TxHash: txHash, FiatRef: ramp.FiatRef(r, st), FailureReason: failure(st, reason)}
}

func offView(r ramp.Ramp, pay safepay.Payment) View {
	st := ramp.LiveStatus(ramp.DirectionOff, string(pay.Status))
	reason := pay.FailureReason
	if pay.Status == safepay.StatusCancelled && reason == "" {
		reason = "the off-ramp's payment was cancelled"
	}
	return View{Ramp: r, Status: st, TxHash: pay.ExecutedTxHash, PaymentStatus: string(pay.Status),
		FiatRef: ramp.FiatRef(r, st), FailureReason: failure(st, reason)}
}

func failure(st ramp.Status, reason string) string {
	if st != ramp.StatusFailed {
		return ""
	}
	if reason == "" {
		return "the ramp's on-chain transfer failed"
	}
	return reason
}
