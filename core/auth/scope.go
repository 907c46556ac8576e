// Package auth holds the pure rules of who may do what: scopes, principals and the API key
// string format. Verification against stored hashes happens in app; this package never does I/O.
package auth

import (
	"sort"
	"strings"
)

// Scope is one permission of docs/api.md Authentication 5.
type Scope string

// ScopeRoot is the "*" scope that makes a root key.
const ScopeRoot Scope = "*"

// Scopes of docs/api.md Authentication 5, exactly.
const (
	ScopeWalletsRead      Scope = "wallets:read"
	ScopeWalletsWrite     Scope = "wallets:write"
	ScopeWalletsFund      Scope = "wallets:fund"
	ScopePaymentsRead     Scope = "payments:read"
	ScopePaymentsCreate   Scope = "payments:create"
	ScopePaymentsExecute  Scope = "payments:execute"
	ScopeCardsRead        Scope = "cards:read"
	ScopeCardsIssue       Scope = "cards:issue"
	ScopeCardsManage      Scope = "cards:manage"
	ScopePoliciesRead     Scope = "policies:read"
	ScopePoliciesWrite    Scope = "policies:write"
	ScopePoliciesEvaluate Scope = "policies:evaluate"
	ScopeAgentsRead       Scope = "agents:read"
	ScopeAgentsManage     Scope = "agents:manage"
	ScopeTreasuryRead     Scope = "treasury:read"
	ScopeTreasuryWrite    Scope = "treasury:write"
	ScopeInvoicesRead     Scope = "invoices:read"
	ScopeInvoicesWrite    Scope = "invoices:write"
	ScopeInvoicesRelease  Scope = "invoices:release"
	ScopeInvoicesPay      Scope = "invoices:pay"
	ScopeRampsRead        Scope = "ramps:read"
	ScopeRampsWrite       Scope = "ramps:write"
	ScopeKeysManage       Scope = "keys:manage"
	ScopeMembersRead      Scope = "members:read"
	ScopeMembersManage    Scope = "members:manage"
	ScopeContactsRead     Scope = "contacts:read"
	ScopeContactsWrite    Scope = "contacts:write"
	ScopeIdentityRead     Scope = "identity:read"
	ScopeIdentityWrite    Scope = "identity:write"
	ScopeStatusRead       Scope = "status:read"
	ScopeTwofactorRead    Scope = "twofactor:read"
	ScopeTwofactorManage  Scope = "twofactor:manage"
)

// AllScopes lists every scope of docs/api.md in its order, "*" last.
var AllScopes = []Scope{
	ScopeWalletsRead, ScopeWalletsWrite, ScopeWalletsFund,
	ScopePaymentsRead, ScopePaymentsCreate, ScopePaymentsExecute,
	ScopeCardsRead, ScopeCardsIssue, ScopeCardsManage,
	ScopePoliciesRead, ScopePoliciesWrite, ScopePoliciesEvaluate,
	ScopeAgentsRead, ScopeAgentsManage,
	ScopeTreasuryRead, ScopeTreasuryWrite,
	ScopeInvoicesRead, ScopeInvoicesWrite, ScopeInvoicesRelease, ScopeInvoicesPay,
	ScopeRampsRead, ScopeRampsWrite,
	ScopeKeysManage,
	ScopeMembersRead, ScopeMembersManage,
	ScopeContactsRead, ScopeContactsWrite,
	ScopeIdentityRead, ScopeIdentityWrite,
	ScopeStatusRead,
	ScopeTwofactorRead, ScopeTwofactorManage,
	ScopeRoot,
}

var knownScopes = func() map[Scope]bool {
	m := make(map[Scope]bool, len(AllScopes))
	for _, s := range AllScopes {
		m[s] = true
	}
	return m
}()

// Known reports whether s is one of docs/api.md's scopes.
func Known(s Scope) bool { return knownScopes[s] }

// DefaultScopes is the set a key gets when scopes are omitted: every ":read" scope (docs/decisions/tenancy.md).
func DefaultScopes() []Scope {
	var out []Scope
	for _, s := range AllScopes {
		if strings.HasSuffix(string(s), ":read") {
			out = append(out, s)
		}
	}
	return out
}

// Normalize dedupes and sorts scopes; a set containing "*" collapses to just "*".
func Normalize(scopes []Scope) []Scope {
	seen := map[Scope]bool{}
	out := make([]Scope, 0, len(scopes))
	for _, s := range scopes {
		if s == ScopeRoot {
			return []Scope{ScopeRoot}
		}
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}
