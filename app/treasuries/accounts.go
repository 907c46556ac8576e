package treasuries

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ledger"
	"github.com/corridorhq/corridor/ports"
)

// CreateAccountInput is the body of POST /v1/treasury/accounts.
type CreateAccountInput struct {
	Name      string
	Owners    []wallet.OwnerInput
	Threshold *int
	ChainID   *int64
	Buckets   []treasury.BucketInput
}

// CreateAccount validates the whole request first (buckets, owners, threshold, chain), then in
// one unit of work creates one bucket Safe per bucket (CREATE2 addresses, usable at once, each
// deployed by the wallets capability's durable job) and the account. Any refusal leaves
// nothing behind.
func (s *Service) CreateAccount(ctx context.Context, p auth.Principal, in CreateAccountInput) (treasury.Account, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryWrite); err != nil {
		return treasury.Account{}, err
	}
	errs := core.FieldErrors{}
	name := treasury.ValidateName(in.Name, errs)
	buckets := treasury.ValidateBuckets(in.Buckets, errs)
	def, err := wallet.Define(p.Environment, name, in.Owners, in.Threshold, in.ChainID)
	errs.Merge(err)
	if err := errs.Err(); err != nil {
		return treasury.Account{}, err
	}
	a := treasury.Account{ID: core.NewID(core.PrefixTreasuryAccount), TenantID: p.TenantID, Environment: p.Environment,
		Name: name, ChainID: def.ChainID, Threshold: def.Threshold, CreatedAt: s.clock.Now().UTC(), Buckets: buckets}
	err = s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		for i := range a.Buckets {
			b := &a.Buckets[i]
			w, err := s.wallets.CreateBucketWallet(ctx, kernel.Acting(p, auth.ScopeWalletsWrite), BucketWallet{
				Name: bucketWalletName(name, b.Name), Owners: in.Owners, Threshold: in.Threshold, ChainID: in.ChainID})
			if err != nil {
				return err
			}
			b.ID, b.AccountID, b.WalletID, b.Address, b.WalletStatus = core.NewID(core.PrefixTreasuryBucket), a.ID, w.ID, w.Address, string(w.Status)
		}
		return tx.Treasury().CreateAccount(ctx, a)
	})
	return a, err
}

// bucketWalletName is "account / bucket", cut to the wallet name limit.
func bucketWalletName(account, bucket string) string {
	n := account + " / " + bucket
	if len(n) > wallet.MaxNameLength {
		n = strings.TrimSpace(n[:wallet.MaxNameLength])
	}
	return n
}

// GetAccount returns the live view of one of the caller's accounts.
func (s *Service) GetAccount(ctx context.Context, p auth.Principal, id string) (treasury.View, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryRead); err != nil {
		return treasury.View{}, err
	}
	a, err := s.findAccount(ctx, p, id)
	if err != nil {
		return treasury.View{}, err
	}
	readCtx, cancel := context.WithTimeout(ctx, viewReadBudget)
	defer cancel()
	return s.view(ctx, readCtx, a)
}

// ListAccounts lists the caller's accounts, oldest first, each with its live view.
func (s *Service) ListAccounts(ctx context.Context, p auth.Principal, page ports.Page) ([]treasury.View, int, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryRead); err != nil {
		return nil, 0, err
	}
	var accounts []treasury.Account
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		accounts, total, err = tx.Treasury().ListAccounts(ctx, p.TenantID, p.Environment, kernel.ClampPage(page))
		return err
	})
	if err != nil {
		return nil, 0, err
	}
	// One budget for every chain read of the page: a slow node makes balances null, never the
	// request hang for each bucket in turn.
	readCtx, cancel := context.WithTimeout(ctx, viewReadBudget)
	defer cancel()
	out := make([]treasury.View, len(accounts))
	for i, a := range accounts {
		if out[i], err = s.view(ctx, readCtx, a); err != nil {
			return nil, 0, err
		}
	}
	return out, total, nil
}

func (s *Service) findAccount(ctx context.Context, p auth.Principal, id string) (treasury.Account, error) {
	var a treasury.Account
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		a, err = tx.Treasury().FindAccount(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
		return err
	})
	return a, err
}

// view reads every bucket's balance (outside any transaction, within readCtx's budget) and its
// accrued yield.
func (s *Service) view(ctx, readCtx context.Context, a treasury.Account) (treasury.View, error) {
	readings := s.readBalances(readCtx, a)
	accrued, err := s.accruedYield(ctx, a)
	if err != nil {
		return treasury.View{}, err
	}
	return treasury.BuildView(a, readings, accrued), nil
}

// readBalances reads each bucket Safe's USDC balance. A failed or slow read is an unreadable
// balance (logged), never zero; so is a missing chain.
func (s *Service) readBalances(ctx context.Context, a treasury.Account) []treasury.Reading {
	out := make([]treasury.Reading, len(a.Buckets))
	chain, err := s.chains.Chain(a.Environment)
	if err != nil {
		return out
	}
	for i, b := range a.Buckets {
		rctx, cancel := context.WithTimeout(ctx, balanceReadTimeout)
		bal, err := chain.USDCBalance(rctx, common.HexToAddress(b.Address))
		cancel()
		if err != nil || bal == nil || !bal.IsInt64() || bal.Sign() < 0 {
			s.log.Warn("treasury: bucket balance unreadable", "accountId", a.ID, "bucketId", b.ID, "error", fmt.Sprint(err))
			continue
		}
		out[i] = treasury.Reading{Readable: true, Balance: bal.Int64()}
	}
	return out
}

// accruedYield is each bucket's ledger yield balance (zero before its first accrual).
func (s *Service) accruedYield(ctx context.Context, a treasury.Account) (map[string]int64, error) {
	out := map[string]int64{}
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		for _, b := range a.Buckets {
			acc, err := tx.Ledger().FindAccountByReference(ctx, a.Environment, ledger.AssetUSDC, a.TenantID, ledger.TreasuryYieldRef(b.ID))
			if errors.Is(err, core.ErrAccountNotFound) {
				continue
			}
			if err != nil {
				return err
			}
			bals, err := tx.Ledger().Balances(ctx, []string{acc.ID})
			if err != nil {
				return err
			}
			out[b.ID] = bals[acc.ID].Posted
		}
		return nil
	})
	return out, err
}

// NewAccountView is the view of an account just created: its Safes hold nothing the service
// has read yet, so balances and the total are null (unknown, not zero) until the first read.
func (s *Service) NewAccountView(a treasury.Account) (treasury.View, error) {
	return treasury.BuildView(a, make([]treasury.Reading, len(a.Buckets)), nil), nil
}
