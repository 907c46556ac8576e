package wiring

import (
	"log/slog"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/console"
	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/adapters/identity"
	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/app/operations"
	"github.com/corridorhq/corridor/ports"
)

// consoleKeyPurpose names the console's cookie key among the cipher's lookup hashes: derived
// from the lookup key, it is the same on every replica and across restarts, and needs no
// configuration of its own.
const consoleKeyPurpose = "console-cookie-key"

// mountConsole mounts the tenant console (/console/) on the API's Fiber app, over the same
// services, and the operator console (/console/operator) over the operator's reports. The
// sign-in budgets count in the database whatever RATE_LIMIT_STORE says: a guesser must not get
// one budget per replica, and sign-ins are too few for the upsert to matter.
func mountConsole(srv *http.Server, svc *registry, cfg Config, protect ports.Cipher, limits console.SharedLimits, log *slog.Logger) error {
	key := protect.LookupHash(consoleKeyPurpose, "v1")
	localOwner, err := localOwnerSignIn(cfg)
	if err != nil {
		return err
	}
	_, err = console.Mount(srv.Fiber(), console.Config{CookieKey: []byte(key), OperatorToken: cfg.OperatorToken,
		SignIn: cfg.ConsoleSignIn, SignInIssuer: cfg.ConsoleSignInIssuer, SignInRedirectURL: cfg.consoleRedirectURL(),
		SignInsPerMinute: cfg.ConsoleSignInsPerMinute, SharedLimits: limits, LocalOwner: localOwner, Exports: srv.AcquireExport}, console.Services{
		Tenancy: svc.Tenancy, Finance: svc.Finance, Wallets: svc.Wallets, SafePay: svc.SafePay, Offramp: svc.Offramp, Claims: svc.Claims,
		Agents: svc.Agents, Cards: svc.Cards, Webhooks: svc.Webhooks, Operations: svc.Operations, Checkout: svc.Checkout, Idempotency: svc.Idempotency,
		RequestLogs: svc.RequestLogs,
	}, log)
	return err
}

// The local owner is the user the quickstart mints a session for (README, `make run`'s first
// steps), so the one-click sign-in lands in the tenant that user created.
const (
	LocalOwnerUser  = "u_1"
	LocalOwnerEmail = "you@example.com"
	localOwnerTTL   = 8 * time.Hour
)

// localOwnerSignIn mints the local owner's sandbox sessions when the configuration asks for it
// and sessions are the sandbox's; nil otherwise (a deployment with a real identity provider,
// LIVE above all, never has it).
func localOwnerSignIn(cfg Config) (func() (string, error), error) {
	if !cfg.ConsoleLocalOwner || cfg.Identity != nil {
		return nil, nil
	}
	idp, err := identity.NewSandbox(cfg.SessionSecret)
	if err != nil {
		return nil, err
	}
	return func() (string, error) { return idp.IssueSession(LocalOwnerUser, LocalOwnerEmail, localOwnerTTL) }, nil
}

// newOperations builds the operator's capability: the cross-tenant reports and the audit trail
// over the database, the job retrier, and the capabilities whose operator actions it runs.
func newOperations(svc *registry, db *bun.DB, jobs ports.JobRetrier, log *slog.Logger) (*operations.Service, error) {
	reports := postgres.NewOperatorReports(db)
	return operations.New(operations.Deps{Reports: reports, Audit: reports, Jobs: jobs,
		Reviews: svc.Offramp, Arbiter: svc.Invoices, Endpoints: svc.Webhooks, Logger: log})
}
