package finance

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// prefixDeposit is the id prefix of sandbox deposits.
const prefixDeposit = "dep"

// MaxDepositBaseUnits bounds one sandbox deposit: 1,000,000 USD. It keeps play money far from
// int64 overflow however many deposits a test makes.
const MaxDepositBaseUnits int64 = 1_000_000 * 1_000_000

// DepositInput is the body of POST /v1/sandbox/balance-deposits.
type DepositInput struct {
	AmountUSD string
}

// Deposit is a recorded sandbox deposit and the service balance right after it.
type Deposit struct {
	ID              string
	Transfer        ledger.Transfer
	AmountBaseUnits int64
	Balance         ServiceBalance
}

// SandboxDeposit credits the caller's TEST service balance from the platform sandbox pool
// (docs/decisions/ledger.md). LIVE callers get SANDBOX_ONLY. Each call is a new deposit with its own ledger
// reference (sandbox_deposit:{id}); retries are made safe by the Idempotency-Key layer, whose
// record commits in the same transaction as this transfer.
func (s *Service) SandboxDeposit(ctx context.Context, p auth.Principal, in DepositInput) (Deposit, error) {
	if err := p.RequireTenant(); err != nil {
		return Deposit{}, err
	}
	if err := kernel.RequireSandbox(p, "sandbox deposits exist only in TEST; use a csk_test_ key"); err != nil {
		return Deposit{}, err
	}
	if err := p.Require(auth.ScopePaymentsCreate); err != nil {
		return Deposit{}, err
	}
	amount, err := depositAmount(in.AmountUSD)
	if err != nil {
		return Deposit{}, err
	}
	now := s.clock.Now()
	id, prepared := kernel.Recall[string](ctx, depositIDAnswer)
	if !prepared {
		id = core.NewID(prefixDeposit)
	}
	d := Deposit{ID: id, AmountBaseUnits: amount}
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		accounts, err := tx.Ledger().OpenAccounts(ctx, now, depositAccounts(p.TenantID)...)
		if err != nil {
			return err
		}
		pool, available := accounts[0], accounts[1]
		spec := ledger.TransferSpec{
			Reference: depositReference(d.ID), Type: ledger.TypePosted, Environment: core.EnvTest, Asset: kernel.ServiceAsset,
			Postings: ledger.Move(pool.ID, available.ID, amount),
			Metadata: map[string]string{"depositId": d.ID, "tenantId": p.TenantID},
		}.MustValidate()
		if d.Transfer, _, err = tx.Ledger().Post(ctx, now, spec); err != nil {
			return err
		}
		balances, err := tx.Ledger().Balances(ctx, []string{available.ID})
		d.Balance = ServiceBalance{Asset: kernel.ServiceAsset, AccountID: available.ID, Balance: balances[available.ID]}
		return err
	})
	return d, err
}

// depositIDAnswer is the prepared answer that holds the deposit's id (PrepareSandboxDeposit).
const depositIDAnswer = "finance:deposit-id"

// depositAccounts are the accounts a deposit moves money between: the tenant's share of the
// platform sandbox pool, and its TEST service balance.
func depositAccounts(tenantID string) []ledger.AccountSpec {
	return []ledger.AccountSpec{ledger.Share(ledger.PlatformSandboxPool(core.EnvTest, kernel.ServiceAsset), tenantID),
		ledger.TenantAvailable(core.EnvTest, kernel.ServiceAsset, tenantID)}
}

// PrepareSandboxDeposit runs before the deposit's unit of work (outside any transaction): it
// picks the deposit's id and names the rows the deposit will lock (kernel.ExpectLedger), so the
// unit's claim of the Idempotency-Key locks and reads them in the same statement and the
// transfer costs no locking read of its own (docs/performance.md). A caller the deposit will
// refuse gets nothing named, and the refusal comes from SandboxDeposit as before.
func (s *Service) PrepareSandboxDeposit(ctx context.Context, p auth.Principal) {
	if kernel.RequireSandboxScope(p, "", auth.ScopePaymentsCreate) != nil {
		return
	}
	id := core.NewID(prefixDeposit)
	kernel.Remember(ctx, depositIDAnswer, id)
	kernel.ExpectLedger(ctx, ports.LedgerIntent{Environment: core.EnvTest, Accounts: depositAccounts(p.TenantID),
		References: []string{depositReference(id)}})
}

// depositReference is the ledger reference of a deposit's transfer.
func depositReference(id string) string { return "sandbox_deposit:" + id }

func depositAmount(s string) (int64, error) {
	amount, err := core.ParseUSD("amountUsd", s)
	if err != nil {
		return 0, err
	}
	if amount <= 0 {
		return 0, core.Invalid("amountUsd", "must be greater than 0")
	}
	if amount > MaxDepositBaseUnits {
		return 0, core.Invalid("amountUsd", "must be at most "+core.FormatUSD(MaxDepositBaseUnits)+" per deposit")
	}
	return amount, nil
}
