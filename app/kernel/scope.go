package kernel

import (
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
)

// RequireTenantScope is the guard every tenant use case starts with: the caller must act for a
// tenant, then hold every scope named.
func RequireTenantScope(p auth.Principal, scopes ...auth.Scope) error {
	if err := p.RequireTenant(); err != nil {
		return err
	}
	return p.Require(scopes...)
}

// FieldReason extracts the reason a single-field validation error gives for field, so a use
// case that validates several fields can collect them into one VALIDATION_FAILED answer.
func FieldReason(err error, field string) string {
	if e, ok := err.(*core.Error); ok {
		if fields, ok := e.Details["fields"].(map[string]any); ok {
			if r, ok := fields[field].(string); ok {
				return r
			}
		}
	}
	return err.Error()
}

// RequireSandbox is the one guard of a sandbox-only feature (docs/decisions/tenancy.md): a LIVE caller is refused with
// SANDBOX_ONLY and message, which names the feature. The HTTP layer answers SANDBOX_ONLY first
// where a route is marked sandbox-only; this guards every other caller.
func RequireSandbox(p auth.Principal, message string) error {
	if p.Environment != core.EnvTest {
		return core.E(core.CodeSandboxOnly, "%s", message)
	}
	return nil
}

// RequireSandboxScope is the guard of a sandbox-only tenant use case: RequireTenantScope, then
// RequireSandbox.
func RequireSandboxScope(p auth.Principal, message string, scopes ...auth.Scope) error {
	if err := RequireTenantScope(p, scopes...); err != nil {
		return err
	}
	return RequireSandbox(p, message)
}
