package wiring

import (
	"log/slog"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/console"
	"github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/adapters/postgres"
	operationsapp "github.com/corridorhq/corridor/app/operations"
	"github.com/corridorhq/corridor/ports"
)

// consoleKeyPurpose names the console's cookie key among the cipher's lookup hashes: derived
// from the lookup key, it is the same on every replica and across restarts, and needs no
// configuration of its own.
const consoleKeyPurpose = "console-cookie-key"

// mountConsole mounts the tenant console (/console/) on the API's Fiber app, over the same
// services, and the operator console (/console/operator) over the operator's reports.
func mountConsole(srv *http.Server, svc *registry, cfg Config, protect ports.Cipher, log *slog.Logger) error {
	key := protect.LookupHash(consoleKeyPurpose, "v1")
	_, err := console.Mount(srv.Fiber(), console.Config{CookieKey: []byte(key), OperatorToken: cfg.OperatorToken,
		SignIn: cfg.ConsoleSignIn, SignInIssuer: cfg.ConsoleSignInIssuer, SignInRedirectURL: cfg.consoleRedirectURL(),
		SignInsPerMinute: cfg.ConsoleSignInsPerMinute}, console.Services{
		Tenancy: svc.Tenancy, Finance: svc.Finance, Wallets: svc.Wallets, SafePay: svc.SafePay, Offramp: svc.Offramp, Claims: svc.Claims,
		Agents: svc.Agents, Cards: svc.Cards, Webhooks: svc.Webhooks, Operations: svc.Operations, Checkout: svc.Checkout, Idempotency: svc.Idempotency,
	}, log)
	return err
}

// newOperations builds the operator's capability: the cross-tenant reports and the audit trail
// over the database, the job retrier, and the capabilities whose operator actions it runs.
func newOperations(svc *registry, db *bun.DB, jobs ports.JobRetrier, log *slog.Logger) (*operationsapp.Service, error) {
	reports := postgres.NewOperatorReports(db)
	return operationsapp.New(operationsapp.Deps{Reports: reports, Audit: reports, Jobs: jobs,
		Reviews: svc.Offramp, Arbiter: svc.Invoices, Endpoints: svc.Webhooks, Logger: log})
}
