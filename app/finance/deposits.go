package finance

import (
	"context"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/ledger"
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
	d := Deposit{ID: core.NewID(prefixDeposit), AmountBaseUnits: amount}
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		accounts, err := tx.Ledger().OpenAccounts(ctx, now,
			ledger.Share(ledger.PlatformSandboxPool(core.EnvTest, kernel.ServiceAsset), p.TenantID), ledger.TenantAvailable(core.EnvTest, kernel.ServiceAsset, p.TenantID))
		if err != nil {
			return err
		}
		pool, available := accounts[0], accounts[1]
		spec := ledger.TransferSpec{
			Reference: "sandbox_deposit:" + d.ID, Type: ledger.TypePosted, Environment: core.EnvTest, Asset: kernel.ServiceAsset,
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
