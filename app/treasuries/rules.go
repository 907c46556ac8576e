package treasuries

import (
	"context"
	"strings"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/ports"
)

// CreateRule validates a rule against the account (its bucket ids must be the account's) and
// stores it. Its first window ends one interval after its creation.
func (s *Service) CreateRule(ctx context.Context, p auth.Principal, accountID string, in treasury.RuleInput) (treasury.Rule, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryWrite); err != nil {
		return treasury.Rule{}, err
	}
	var r treasury.Rule
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		a, err := tx.Treasury().FindAccount(ctx, p.TenantID, p.Environment, strings.TrimSpace(accountID))
		if err != nil {
			return err
		}
		// The account's row lock serialises rule creation, so the cap holds under concurrency.
		if a, err = tx.Treasury().LockAccount(ctx, a.TenantID, a.ID); err != nil {
			return err
		}
		if r, err = treasury.NewRule(core.NewID(core.PrefixTreasuryRule), a, in, s.clock.Now().UTC()); err != nil {
			return err
		}
		n, err := tx.Treasury().CountRules(ctx, a.TenantID, a.ID)
		if err != nil {
			return err
		}
		if n >= treasury.MaxRulesPerAccount {
			return core.E(core.CodeInvalidState, "an account holds at most %d rules; delete one first", treasury.MaxRulesPerAccount)
		}
		return tx.Treasury().CreateRule(ctx, r)
	})
	return r, err
}

// ListRules lists an account's rules, oldest first.
func (s *Service) ListRules(ctx context.Context, p auth.Principal, accountID string, page ports.Page) ([]treasury.Rule, int, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryRead); err != nil {
		return nil, 0, err
	}
	var out []treasury.Rule
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		a, err := tx.Treasury().FindAccount(ctx, p.TenantID, p.Environment, strings.TrimSpace(accountID))
		if err != nil {
			return err
		}
		out, total, err = tx.Treasury().ListRules(ctx, a.TenantID, a.ID, kernel.ClampPage(page))
		return err
	})
	return out, total, err
}

// UpdateRule applies a PATCH: only sent fields change, an explicit null clears an amount, and
// the result is checked as a whole (a TOP_UP keeps its target, a SWEEP_EXCESS its threshold).
func (s *Service) UpdateRule(ctx context.Context, p auth.Principal, id string, patch treasury.RulePatch) (treasury.Rule, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryWrite); err != nil {
		return treasury.Rule{}, err
	}
	var r treasury.Rule
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		locked, a, err := s.lockOwnRule(ctx, tx, p, id)
		if err != nil {
			return err
		}
		if r, err = locked.Apply(a, patch); err != nil {
			return err
		}
		return tx.Treasury().UpdateRule(ctx, r)
	})
	return r, err
}

// DeleteRule deletes a rule: it stops firing at once and is no longer listed; sweeps it
// proposed keep their ruleId. Deleting it again answers TREASURY_RULE_NOT_FOUND.
func (s *Service) DeleteRule(ctx context.Context, p auth.Principal, id string) (treasury.Rule, error) {
	if err := kernel.RequireSandboxScope(p, sandboxMessage, auth.ScopeTreasuryWrite); err != nil {
		return treasury.Rule{}, err
	}
	var r treasury.Rule
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		locked, _, err := s.lockOwnRule(ctx, tx, p, id)
		if err != nil {
			return err
		}
		now := s.clock.Now().UTC()
		r = locked
		r.Enabled, r.DeletedAt = false, &now
		return tx.Treasury().UpdateRule(ctx, r)
	})
	return r, err
}

// lockOwnRule finds the caller's undeleted rule, then locks it and loads its account.
func (s *Service) lockOwnRule(ctx context.Context, tx txView, p auth.Principal, id string) (treasury.Rule, treasury.Account, error) {
	found, err := tx.Treasury().FindRule(ctx, p.TenantID, p.Environment, strings.TrimSpace(id))
	if err != nil {
		return treasury.Rule{}, treasury.Account{}, err
	}
	locked, err := tx.Treasury().LockRule(ctx, found.TenantID, found.ID)
	if err != nil {
		return treasury.Rule{}, treasury.Account{}, err
	}
	if locked.DeletedAt != nil {
		return treasury.Rule{}, treasury.Account{}, core.NotFound(treasury.CodeRuleNotFound, "treasury rule")
	}
	a, err := tx.Treasury().FindAccount(ctx, p.TenantID, p.Environment, locked.AccountID)
	return locked, a, err
}
