package http

import (
	"context"
	"encoding/json"
	"github.com/corridorhq/corridor/app/requestlogs"
	"github.com/corridorhq/corridor/core/requestlog"
	"io"
	"log/slog"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/adapters/issuer"
	webhooksender "github.com/corridorhq/corridor/adapters/webhook"
	"github.com/corridorhq/corridor/app/agents"
	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/app/faucet"
	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/app/invoices"
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/app/offramps"
	"github.com/corridorhq/corridor/app/operations"
	"github.com/corridorhq/corridor/app/policies"
	"github.com/corridorhq/corridor/app/ramps"
	"github.com/corridorhq/corridor/app/recipients"
	"github.com/corridorhq/corridor/app/safepayments"
	"github.com/corridorhq/corridor/app/tenancy"
	"github.com/corridorhq/corridor/app/treasuries"
	"github.com/corridorhq/corridor/app/twofactors"
	"github.com/corridorhq/corridor/app/wallets"
	"github.com/corridorhq/corridor/app/webhooks"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

type nopStore struct{}

func (nopStore) InTx(context.Context, func(context.Context, ports.Tx) error) error { return nil }
func (nopStore) Ping(context.Context) error                                        { return nil }

type nopJobs struct{}

func (nopJobs) Enqueue(context.Context, ports.JobArgs, ports.JobOptions) error { return nil }

type nopIdentity struct{}

func (nopIdentity) VerifySession(context.Context, string) (ports.Session, error) {
	return ports.Session{}, nil
}

// TestRecover_PanicBecomesEnvelope: a panicking handler answers the INTERNAL envelope with
// the request id, and the server keeps serving.
func TestRecover_PanicBecomesEnvelope(t *testing.T) {
	s, err := New(Config{Store: nopStore{}}, nopServices(t), slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	s.fiber.Get("/boom", func(*fiber.Ctx) error { panic("kaboom") })
	resp, err := s.fiber.Test(httptest.NewRequest("GET", "/boom", nil), -1)
	if err != nil {
		t.Fatal(err)
	}
	var env Envelope
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != 500 || env.Code != "INTERNAL" || env.RequestID == "" || env.RequestID != resp.Header.Get("X-Request-Id") {
		t.Fatalf("status %d envelope %+v", resp.StatusCode, env)
	}
	if env.Message == "kaboom" {
		t.Fatal("panic value leaked to the client")
	}
	ok, err := s.fiber.Test(httptest.NewRequest("GET", "/healthz", nil), -1)
	if err != nil || ok.StatusCode != 200 {
		t.Fatalf("server did not keep serving: %v %v", ok, err)
	}
}

func TestStatusTable_CoversEveryD4Code(t *testing.T) {
	want := map[string]int{
		"VALIDATION_FAILED": 400, "UNAUTHENTICATED": 401, "INSUFFICIENT_SCOPE": 403, "TENANT_REQUIRED": 403,
		"SANDBOX_ONLY": 403, "INVALID_STATE": 409, "IDEMPOTENCY_KEY_REUSED": 422,
		"IDEMPOTENCY_REQUEST_IN_PROGRESS": 409, "RATE_LIMITED": 429, "INTERNAL": 500,
	}
	for code, status := range want {
		if got := StatusFor(coreCode(code)); got != status {
			t.Errorf("%s → %d, want %d", code, got, status)
		}
	}
}

func coreCode(s string) core.Code { return core.Code(s) }

// nopServices wires every service over ports that do nothing: enough to build the server.
func nopServices(t *testing.T) Deps {
	t.Helper()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	walletsSvc, err := wallets.New(wallets.Deps{Store: nopStore{}, Jobs: nopJobs{}})
	must(err)
	faucetSvc, err := faucet.New(faucet.Deps{Store: nopStore{}, Jobs: nopJobs{}})
	must(err)
	agentsSvc, err := agents.New(agents.Deps{Store: nopStore{}, Wallets: nopAgentWallets{}})
	must(err)
	tenancySvc, err := tenancy.New(tenancy.Deps{Store: nopStore{}, Identity: nopIdentity{}, WalletOwners: walletsSvc, Agents: agentsSvc})
	must(err)
	financeSvc, err := finance.New(finance.Deps{Store: nopStore{}})
	must(err)
	policySvc, err := policies.New(policies.Deps{Store: nopStore{}})
	must(err)
	twoFactorSvc, err := twofactors.New(twofactors.Deps{Store: nopStore{}, Cipher: nopCipher{}})
	must(err)
	safePaySvc, err := safepayments.New(safepayments.Deps{Store: nopStore{}, Jobs: nopJobs{}, PolicyGate: policySvc, AgentGate: agentsSvc, ApprovalGate: twoFactorSvc})
	must(err)
	changed := &kernel.Subscribers[recipient.Changed]{}
	needed, canceled, settled := &kernel.Subscribers[offramp.ClaimNeeded]{}, &kernel.Subscribers[offramp.ClaimCanceled]{},
		&kernel.Subscribers[offramp.ClaimSettled]{}
	recipientsSvc, err := recipients.New(recipients.Deps{Store: nopStore{}, Jobs: nopJobs{}, Changed: changed})
	must(err)
	offrampSvc, err := offramps.New(offramps.Deps{Store: nopStore{}, Jobs: nopJobs{}, SpendPolicy: policySvc,
		Recipients: recipientsSvc, RecipientChanged: changed, ClaimNeeded: needed, ClaimCanceled: canceled, ClaimSettled: settled})
	must(err)
	claimsSvc, err := claims.New(claims.Deps{Store: nopStore{}, Jobs: nopJobs{}, Payments: offrampSvc, Recipients: recipientsSvc,
		ClaimNeeded: needed, ClaimCanceled: canceled, ClaimSettled: settled})
	must(err)
	treasurySvc, err := treasuries.New(treasuries.Deps{Store: nopStore{}, Jobs: nopJobs{}, Wallets: nopTreasuryPorts{}, Payments: nopTreasuryPorts{}})
	must(err)
	invoicesSvc, err := invoices.New(invoices.Deps{Store: nopStore{}, Jobs: nopJobs{}, Wallets: nopInvoicePorts{}, Payments: nopInvoicePorts{}})
	must(err)
	cardsSvc, err := cards.New(cards.Deps{Store: nopStore{}, Jobs: nopJobs{}, Issuer: issuer.NewSandbox(), PolicyGate: policySvc})
	must(err)
	rampsSvc, err := ramps.New(ramps.Deps{Store: nopStore{}, Credits: faucetSvc, Payments: nopRampPayments{},
		LiquidationAddress: "0x000000000000000000000000000000000000dEaD"})
	must(err)
	idem, err := kernel.NewIdempotency(kernel.IdempotencyDeps{Store: nopStore{}})
	must(err)
	webhooksSvc, err := webhooks.New(webhooks.Deps{Store: nopStore{}, Jobs: nopJobs{}, Cipher: nopCipher{}, Sender: webhooksender.New(time.Second)})
	must(err)
	checkoutSvc, err := checkouts.New(checkouts.Deps{Store: nopStore{}, Jobs: nopJobs{}, Policy: nopPolicy{}})
	must(err)
	operationsSvc, err := operations.New(operations.Deps{Reports: nopOperator{}, Audit: nopOperator{}, Jobs: nopOperator{},
		Reviews: offrampSvc, Arbiter: invoicesSvc, Endpoints: webhooksSvc, Logger: slog.New(slog.NewJSONHandler(io.Discard, nil))})
	must(err)
	requestLogsSvc, err := requestlogs.New(nopRequestLogs{}, nil)
	must(err)
	return Deps{RequestLogs: requestLogsSvc, Recorder: nopRecorder{}, Operations: operationsSvc, Claims: claimsSvc, Recipients: recipientsSvc, Checkout: checkoutSvc, Webhooks: webhooksSvc, Ramps: rampsSvc, Tenancy: tenancySvc, Finance: financeSvc, Wallets: walletsSvc, Faucet: faucetSvc, SafePay: safePaySvc,
		Policy: policySvc, Offramp: offrampSvc, Agents: agentsSvc, Treasury: treasurySvc, Cards: cardsSvc, TwoFactor: twoFactorSvc, Invoices: invoicesSvc, Idempotency: idem}
}

type nopRequestLogs struct{}

func (nopRequestLogs) AppendRequestLogs(context.Context, []requestlog.Entry) error { return nil }
func (nopRequestLogs) ListRequestLogs(context.Context, requestlog.Filter, *requestlog.Cursor, int) ([]requestlog.Entry, error) {
	return nil, nil
}
func (nopRequestLogs) FindRequestLog(context.Context, string, core.Environment, string) (requestlog.Entry, error) {
	return requestlog.Entry{}, core.NotFound(requestlog.CodeNotFound, "request log entry")
}
func (nopRequestLogs) PruneRequestLogs(context.Context, time.Time) (int, error) { return 0, nil }

type nopRecorder struct{}

func (nopRecorder) Record(requestlog.Entry) {}

type nopRampPayments struct{}

func (nopRampPayments) ReadRampPayment(context.Context, auth.Principal, safepay.Request) (ramps.PaymentRead, error) {
	return nil, nil
}

func (nopRampPayments) ProposeRampPayment(context.Context, auth.Principal, ramps.PaymentRead) (safepay.Payment, error) {
	return safepay.Payment{}, nil
}

type nopCipher struct{}

func (nopCipher) Encrypt(p []byte, _ string) ([]byte, error) { return p, nil }
func (nopCipher) Decrypt(c []byte, _ string) ([]byte, error) { return c, nil }
func (nopCipher) LookupHash(_, v string) string              { return v }

type nopAgentWallets struct{}

func (nopAgentWallets) ProvisionAgentWallet(context.Context, auth.Principal, agents.WalletInput) (wallet.Wallet, error) {
	return wallet.Wallet{}, nil
}

// nopInvoicePorts stands in for the wallets and payments capabilities invoices call.
type nopInvoicePorts struct{}

func (nopInvoicePorts) CreateHoldWallet(context.Context, auth.Principal, invoices.HoldWallet) (wallet.Wallet, error) {
	return wallet.Wallet{}, core.E(core.CodeInternal, "not wired")
}

func (nopInvoicePorts) ReadPayment(context.Context, auth.Principal, safepay.Request) (invoices.PaymentRead, error) {
	return nil, core.E(core.CodeInternal, "not wired")
}

func (nopInvoicePorts) ProposePayment(context.Context, auth.Principal, invoices.PaymentRead) (safepay.Payment, error) {
	return safepay.Payment{}, core.E(core.CodeInternal, "not wired")
}

func (nopInvoicePorts) ReadSignature(context.Context, auth.Principal, string, string) (invoices.PaymentRead, error) {
	return nil, core.E(core.CodeInternal, "not wired")
}

func (nopInvoicePorts) Sign(context.Context, auth.Principal, invoices.PaymentRead) (safepay.Payment, error) {
	return safepay.Payment{}, core.E(core.CodeInternal, "not wired")
}

// nopTreasuryPorts stands in for the wallets and payments capabilities treasury calls.
type nopTreasuryPorts struct{}

func (nopTreasuryPorts) CreateBucketWallet(context.Context, auth.Principal, treasuries.BucketWallet) (wallet.Wallet, error) {
	return wallet.Wallet{}, core.E(core.CodeInternal, "not wired")
}

func (nopTreasuryPorts) ReadSweepPayment(context.Context, auth.Principal, safepay.Request) (treasuries.PaymentRead, error) {
	return nil, core.E(core.CodeInternal, "not wired")
}

func (nopTreasuryPorts) ProposeSweepPayment(context.Context, auth.Principal, treasuries.PaymentRead) (safepay.Payment, error) {
	return safepay.Payment{}, core.E(core.CodeInternal, "not wired")
}

// nopOperator is an operator's world with nothing waiting and an audit trail that forgets.
type nopOperator struct{}

func (nopOperator) PaymentsAwaitingOperator(context.Context, int) ([]ports.OperatorPayment, error) {
	return nil, nil
}
func (nopOperator) FailedJobs(context.Context, int) ([]ports.FailedJob, error) { return nil, nil }
func (nopOperator) StuckRelayerTransactions(context.Context, time.Duration, int) ([]ports.StuckRelayerTransaction, error) {
	return nil, nil
}
func (nopOperator) DisabledEndpoints(context.Context, int) ([]ports.DisabledEndpoint, error) {
	return nil, nil
}
func (nopOperator) FindDisabledEndpoint(context.Context, string) (ports.DisabledEndpoint, error) {
	return ports.DisabledEndpoint{}, nil
}
func (nopOperator) InvoicesAwaitingArbiter(context.Context, string, int) ([]ports.ArbiterInvoice, error) {
	return nil, nil
}
func (nopOperator) RecentOperatorActions(context.Context, int) ([]ports.OperatorAction, error) {
	return nil, nil
}
func (nopOperator) FindTenants(context.Context, string, int) ([]ports.TenantMatch, error) {
	return nil, nil
}
func (nopOperator) RecordOperatorAction(context.Context, ports.OperatorAction) error { return nil }
func (nopOperator) RetryJob(context.Context, int64) error                            { return nil }

type nopPolicy struct{}

func (nopPolicy) GateBalanceSpend(context.Context, auth.Principal, string, int64, string) (*core.Error, error) {
	return nil, nil
}
