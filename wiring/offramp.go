package wiring

import (
	"context"
	"log/slog"
	"time"

	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/app/offramps"
	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// newOfframp builds the three capabilities of "pay a phone number" into s: recipients (aliases,
// credentials, destinations, the SMS outbox), off-ramp payments and pending claims. Each uses
// the others through the interface it declares; the two that point back (a recipient's change
// re-runs held payments, a payment opens and releases claims) reach the service through s once
// it exists.
func newOfframp(cfg Config, p servicePorts, s *registry, log *slog.Logger) error {
	var err error
	s.Recipients, err = recipients.New(recipients.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock,
		Cipher: p.cipher, SMS: p.sms, SMSOutbox: p.sms, AliasBudget: cfg.AliasBudget, SMSOutboxRetention: cfg.SMSOutboxRetention,
		HeldPayments: heldPayments{s}})
	if err != nil {
		return err
	}
	sourceChains := SourceChains(cfg.Chains, cfg.ChainAdapters)
	s.Offramp, err = offramps.New(offramps.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock,
		Screening: p.screening, Payouts: p.payouts,
		QuoteLifetime: cfg.Payouts.QuoteLifetime, PollInterval: cfg.Payouts.PollInterval,
		PollWindow: cfg.Payouts.PollWindow, QuoteExpiryInterval: cfg.Payouts.QuoteExpiryInterval,
		HoldRecheckInterval: cfg.Payouts.HoldRecheckInterval, PhoneReverifyAfter: cfg.Payouts.PhoneReverifyAfter,
		SourceChains: sourceChains, SpendPolicy: s.Policy, Claims: paymentClaims{s}, Recipients: s.Recipients, Logger: log})
	if err != nil {
		return err
	}
	s.Claims, err = claims.New(claims.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Cipher: p.cipher, Escrows: claimEscrows(cfg.ChainAdapters), Lifetime: cfg.ClaimLifetime, LinkBase: cfg.ClaimLinkBase,
		CodesPerIP: cfg.ClaimCodesPerIP, CodesPerPhone: cfg.ClaimCodesPerPhone, ResendsPerClaim: cfg.ClaimResendsPerClaim,
		RelayerBudget: kernel.RelayerBudget(cfg.RelayerTxBudget), SourceChains: sourceChains, Logger: log,
		Confirmations: cfg.ChainConfirmations, Payments: s.Offramp, Recipients: s.Recipients})
	return err
}

// heldPayments re-runs the composer for a recipient's held payments; payments are built after
// recipients, so it reaches them through s.
type heldPayments struct{ s *registry }

func (h heldPayments) ReevaluateHeld(ctx context.Context, tx ports.Tx, env core.Environment, recipientTenantID string) error {
	return h.s.Offramp.ReevaluateHeld(ctx, tx, env, recipientTenantID)
}

func (h heldPayments) PrepareHeld(ctx context.Context, env core.Environment, recipientTenantID string) error {
	return h.s.Offramp.PrepareHeld(ctx, env, recipientTenantID)
}

// paymentClaims are the pending claims of off-ramp payments; claims are built after payments
// (they post through them), so it reaches them through s.
type paymentClaims struct{ s *registry }

func (c paymentClaims) EscrowReady(env core.Environment) error { return c.s.Claims.EscrowReady(env) }

func (c paymentClaims) OpenClaim(ctx context.Context, tx ports.Tx, now time.Time, pay *offramp.Payment, phone recipient.Phone) error {
	return c.s.Claims.OpenClaim(ctx, tx, now, pay, phone)
}

func (c paymentClaims) CancelPendingClaim(ctx context.Context, tx ports.Tx, now time.Time, pay *offramp.Payment) error {
	return c.s.Claims.CancelPendingClaim(ctx, tx, now, pay)
}

func (c paymentClaims) ReleaseClaimFunds(ctx context.Context, tx ports.Tx, now time.Time, pay *offramp.Payment, to ledger.AccountSpec, step string) error {
	return c.s.Claims.ReleaseClaimFunds(ctx, tx, now, pay, to, step)
}

var (
	_ offramps.Claims         = paymentClaims{}
	_ recipients.HeldPayments = heldPayments{}
	_ claims.Payments         = (*offramps.Service)(nil)
	_ claims.Recipients       = (*recipients.Service)(nil)
	_ offramps.Recipients     = (*recipients.Service)(nil)
)
