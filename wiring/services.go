package wiring

import (
	"log/slog"

	"github.com/riverqueue/river"

	"corridor/adapters/http"
	"corridor/adapters/issuer"
	cardsapp "corridor/app/cards"
	"corridor/app/finance"
	"corridor/app/kernel"
	offrampapp "corridor/app/offramp"
	policyapp "corridor/app/policy"
	safepayapp "corridor/app/safepay"
	"corridor/app/tenancy"
	"corridor/app/wallets"
	"corridor/ports"
)

// servicePorts are the adapters Build made that the capabilities use.
type servicePorts struct {
	store    ports.Store // what the use cases see (cfg.WrapStore applied)
	identity ports.Identity
	jobs     ports.Jobs
	cipher   ports.Cipher
	sms      interface {
		ports.SMS
		ports.SMSOutbox
	}
	payouts   map[string]ports.PayoutRail
	screening ports.Screening
}

// newServices builds one service per capability of app/ and plugs them into each other
// through the small interfaces each caller declares: tenancy asks wallets which wallets a
// signer owns; Safe payments and off-ramp payments ask policy for its gates.
func newServices(cfg Config, p servicePorts, log *slog.Logger) (http.Services, error) {
	var s http.Services
	var err error
	cardIssuer := issuer.NewSandbox()
	if s.Idempotency, err = kernel.NewIdempotency(kernel.IdempotencyDeps{Store: p.store, Clock: cfg.Clock, TTL: cfg.IdempotencyTTL}); err != nil {
		return s, err
	}
	if s.Wallets, err = wallets.New(wallets.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Faucet: cfg.Faucet, MaxWalletsPerTenant: cfg.MaxWalletsPerTenant, Confirmations: cfg.ChainConfirmations, Logger: log,
		RelayerBudget: kernel.RelayerBudget(cfg.RelayerTxBudget),
		// Card settlements debit the clearing account of the issuer the cards capability uses.
		CardModules: cardSpendModules(cfg.ChainAdapters), CardIssuer: cardIssuer.Name()}); err != nil {
		return s, err
	}
	if s.Tenancy, err = tenancy.New(tenancy.Deps{Store: p.store, Identity: p.identity, Clock: cfg.Clock, WalletOwners: s.Wallets}); err != nil {
		return s, err
	}
	if s.Finance, err = finance.New(finance.Deps{Store: p.store, Clock: cfg.Clock, Chains: cfg.ChainAdapters}); err != nil {
		return s, err
	}
	if s.Policy, err = policyapp.New(policyapp.Deps{Store: p.store, Clock: cfg.Clock, Enforcement: cfg.PolicyEnforcement, Logger: log}); err != nil {
		return s, err
	}
	if s.SafePay, err = safepayapp.New(safepayapp.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		PolicyGate: s.Policy, RelayerBudget: kernel.RelayerBudget(cfg.RelayerTxBudget)}); err != nil {
		return s, err
	}
	s.Offramp, err = offrampapp.New(offrampapp.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Chains: cfg.ChainAdapters,
		Cipher: p.cipher, SMS: p.sms, SMSOutbox: p.sms, Screening: p.screening, Payouts: p.payouts,
		QuoteLifetime: cfg.Payouts.QuoteLifetime, PollInterval: cfg.Payouts.PollInterval,
		PollWindow:   cfg.Payouts.PollWindow,
		ClaimEscrows: claimEscrows(cfg.ChainAdapters), ClaimLifetime: cfg.ClaimLifetime, ClaimLinkBase: cfg.ClaimLinkBase,
		ClaimCodesPerIP:    cfg.ClaimCodesPerIP,
		RelayerBudget:      kernel.RelayerBudget(cfg.RelayerTxBudget),
		ClaimCodesPerPhone: cfg.ClaimCodesPerPhone, ClaimResendsPerClaim: cfg.ClaimResendsPerClaim,
		AliasBudget: cfg.AliasBudget, SMSOutboxRetention: cfg.SMSOutboxRetention,
		SourceChains: SourceChains(cfg.Chains, cfg.ChainAdapters), SpendPolicy: s.Policy, Logger: log,
		Confirmations: cfg.ChainConfirmations})
	if err != nil {
		return s, err
	}
	s.Cards, err = cardsapp.New(cardsapp.Deps{Store: p.store, Jobs: p.jobs, Clock: cfg.Clock, Issuer: cardIssuer,
		Provider: cfg.IssuingProvider, Modules: cardSpendModules(cfg.ChainAdapters), Chains: cfg.ChainAdapters, PolicyGate: s.Policy})
	return s, err
}

// jobCapabilities are the services with background work, in the order their workers register.
func jobCapabilities(s http.Services, extra ...kernel.Jobs) []kernel.Jobs {
	return append([]kernel.Jobs{s.Idempotency, s.Wallets, s.SafePay, s.Offramp, s.Cards}, extra...)
}

// newWorkers is River's registry with every capability's workers.
func newWorkers(s http.Services, extra ...kernel.Jobs) *river.Workers {
	workers := river.NewWorkers()
	kernel.RegisterWorkers(workers, jobCapabilities(s, extra...)...)
	return workers
}
