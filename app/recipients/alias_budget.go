package recipients

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/ports"
)

// AliasBudget bounds how many phone-alias codes may be sent and guessed wrong. Sends and wrong
// codes both count against PerPhone, PerTenant and PerIP over Window; a new alias is refused
// once any of them is spent, and a verify once the wrong codes alone have spent one. MaxPending
// caps a tenant's aliases still waiting for an unexpired code.
type AliasBudget struct {
	PerPhone   int
	PerTenant  int
	PerIP      int
	MaxPending int
	Window     time.Duration
}

func (b AliasBudget) withDefaults() AliasBudget {
	for _, f := range []struct {
		v   *int
		def int
	}{{&b.PerPhone, recipient.MaxAliasAttemptsPerPhone}, {&b.PerTenant, recipient.MaxAliasAttemptsPerTenant},
		{&b.PerIP, recipient.MaxAliasAttemptsPerIP}, {&b.MaxPending, recipient.MaxPendingAliases}} {
		if *f.v <= 0 {
			*f.v = f.def
		}
	}
	if b.Window <= 0 {
		b.Window = recipient.AliasBudgetWindow
	}
	return b
}

// aliasScope is one budget an alias request is counted against.
type aliasScope struct {
	name  string
	limit int
	scope ports.AliasAttemptScope
}

func (s *Service) aliasScopes(p auth.Principal, phoneHash, ipHash string, kind ports.AliasAttemptKind) []aliasScope {
	b := s.aliasBudget
	return []aliasScope{
		{"phone", b.PerPhone, ports.AliasAttemptScope{Environment: p.Environment, PhoneHash: phoneHash, Kind: kind}},
		{"tenant", b.PerTenant, ports.AliasAttemptScope{Environment: p.Environment, TenantID: p.TenantID, Kind: kind}},
		{"ip", b.PerIP, ports.AliasAttemptScope{IPHash: ipHash, Kind: kind}},
	}
}

// checkAliasBudget locks the scopes' budgets for the rest of the transaction, so the attempt
// the caller records next is counted by every concurrent request, then answers RATE_LIMITED (details.scope, retryAfterSeconds) when one of the
// scopes has spent its budget. kind "" counts sends and wrong codes (a new alias); a verify
// counts only wrong codes, so the code just sent can still be entered.
func (s *Service) checkAliasBudget(ctx context.Context, tx txView, p auth.Principal, phoneHash, ipHash string,
	kind ports.AliasAttemptKind, now time.Time) error {
	window := s.aliasBudget.Window
	scopes := s.aliasScopes(p, phoneHash, ipHash, kind)
	lock := make([]ports.AliasAttemptScope, len(scopes))
	for i, sc := range scopes {
		lock[i] = sc.scope
		lock[i].Kind = "" // sends and wrong codes of one scope share the lock
	}
	if err := tx.Recipients().LockAliasBudgets(ctx, lock...); err != nil {
		return err
	}
	for _, sc := range scopes {
		n, oldest, err := tx.Recipients().CountAliasAttempts(ctx, sc.scope, now.Add(-window))
		if err != nil {
			return err
		}
		if n >= sc.limit {
			return aliasRateLimited(sc.name, sc.limit, window, oldest.Add(window).Sub(now))
		}
	}
	if kind != "" {
		return nil
	}
	pending, err := tx.Recipients().CountPendingAliases(ctx, p.TenantID, p.Environment, now)
	if err != nil {
		return err
	}
	if pending >= s.aliasBudget.MaxPending {
		return aliasRateLimited("pendingAliases", s.aliasBudget.MaxPending, recipient.CodeLifetime, recipient.CodeLifetime)
	}
	return nil
}

func aliasRateLimited(scope string, limit int, window, wait time.Duration) error {
	secs := int((wait + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return core.E(core.CodeRateLimited, "too many phone verification codes (%s budget); try again later", scope).
		WithDetails(map[string]any{"scope": scope, "limit": limit, "windowSeconds": int(window.Seconds()), "retryAfterSeconds": secs})
}

// recordAliasAttempt counts a code sent or a wrong code against every alias budget.
func (s *Service) recordAliasAttempt(ctx context.Context, tx txView, p auth.Principal, phoneHash, ipHash string,
	kind ports.AliasAttemptKind, now time.Time) error {
	return tx.Recipients().RecordAliasAttempt(ctx, ports.AliasAttempt{Environment: p.Environment, Kind: kind,
		PhoneHash: phoneHash, TenantID: p.TenantID, IPHash: ipHash, At: now})
}
