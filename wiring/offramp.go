package wiring

import (
	"log/slog"

	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/app/offramps"
	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
)

// newOfframp builds the three capabilities of "pay a phone number" into s, in the order they
// depend on each other: recipients (aliases, credentials, destinations, the SMS outbox),
// off-ramp payments (which ask recipients) and pending claims (which ask both). The two ways
// back are domain events raised inside the raiser's unit of work: a change on a recipient's
// side (recipient.Changed) re-runs the payments held for it, and a payment to a phone raises
// its claim's steps (offramp.ClaimNeeded, ClaimCanceled, ClaimSettled) for claims to carry out.
func newOfframp(cfg Config, p servicePorts, s *registry, log *slog.Logger) error {
	recipientChanged := &kernel.Subscribers[recipient.Changed]{}
	claimNeeded, claimCanceled, claimSettled := &kernel.Subscribers[offramp.ClaimNeeded]{},
		&kernel.Subscribers[offramp.ClaimCanceled]{}, &kernel.Subscribers[offramp.ClaimSettled]{}
	escrows := kernel.ClaimEscrows(claimEscrows(cfg.ChainAdapters))
	var err error
	s.Recipients, err = recipients.New(recipients.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock,
		Cipher: p.cipher, SMS: p.sms, SMSOutbox: p.sms, AliasBudget: cfg.AliasBudget, SMSOutboxRetention: cfg.SMSOutboxRetention,
		Changed: recipientChanged})
	if err != nil {
		return err
	}
	sourceChains := SourceChains(cfg.Chains, cfg.ChainAdapters)
	s.Offramp, err = offramps.New(offramps.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock,
		Screening: p.screening, Payouts: p.payouts,
		QuoteLifetime: cfg.Payouts.QuoteLifetime, PollInterval: cfg.Payouts.PollInterval,
		PollWindow: cfg.Payouts.PollWindow, QuoteExpiryInterval: cfg.Payouts.QuoteExpiryInterval,
		HoldRecheckInterval: cfg.Payouts.HoldRecheckInterval, PhoneReverifyAfter: cfg.Payouts.PhoneReverifyAfter,
		SourceChains: sourceChains, SpendPolicy: s.Policy, Recipients: s.Recipients, RecipientChanged: recipientChanged,
		ClaimEscrows: escrows, ClaimNeeded: claimNeeded, ClaimCanceled: claimCanceled, ClaimSettled: claimSettled, Logger: log})
	if err != nil {
		return err
	}
	s.Claims, err = claims.New(claims.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Cipher: p.cipher, Escrows: escrows, Lifetime: cfg.ClaimLifetime, LinkBase: cfg.ClaimLinkBase,
		CodesPerIP: cfg.ClaimCodesPerIP, CodesPerPhone: cfg.ClaimCodesPerPhone, ResendsPerClaim: cfg.ClaimResendsPerClaim,
		RelayerBudget: kernel.RelayerBudget(cfg.RelayerTxBudget), SourceChains: sourceChains, Logger: log,
		Confirmations: cfg.ChainConfirmations, Payments: s.Offramp, Recipients: s.Recipients,
		ClaimNeeded: claimNeeded, ClaimCanceled: claimCanceled, ClaimSettled: claimSettled})
	return err
}

var (
	_ claims.Payments     = (*offramps.Service)(nil)
	_ claims.Recipients   = (*recipients.Service)(nil)
	_ offramps.Recipients = (*recipients.Service)(nil)
)
