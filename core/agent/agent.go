// Package agent holds the rules of agents: tenant-owned automation principals with scoped keys,
// USD spend limits counted in UTC day, ISO week and calendar month windows, and a status that
// suspension flips. It does no I/O.
package agent

import (
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
)

// Codes of the agents capability (docs/api.md Errors).
const (
	CodeNotFound         core.Code = "AGENT_NOT_FOUND"
	CodeSuspended        core.Code = "AGENT_SUSPENDED"
	CodeLimit            core.Code = "AGENT_LIMIT"
	CodeLimitUnavailable core.Code = "AGENT_LIMIT_UNAVAILABLE"
	CodeWalletExists     core.Code = "AGENT_WALLET_EXISTS"
	CodeCardExists       core.Code = "AGENT_CARD_EXISTS"
	// CodeWalletRequired: an agent's card spends from the agent's Safe, so it needs one.
	CodeWalletRequired core.Code = "AGENT_WALLET_REQUIRED"
)

// Status is an agent's state.
type Status string

const (
	StatusActive    Status = "ACTIVE"
	StatusSuspended Status = "SUSPENDED"
)

// Action is what moves an agent between states.
type Action string

const (
	ActionSuspend    Action = "suspend"
	ActionReactivate Action = "reactivate"
)

// transitions is docs/api.md's agent state machine: active to suspended and back. Suspending a
// suspended agent and reactivating an active one are no-ops that answer the agent unchanged,
// as revoking a revoked key does, so a retried call never fails.
var transitions = map[Status]map[Action]Status{
	StatusActive:    {ActionSuspend: StatusSuspended, ActionReactivate: StatusActive},
	StatusSuspended: {ActionSuspend: StatusSuspended, ActionReactivate: StatusActive},
}

// Next applies an action; an unknown state or action is INVALID_STATE.
func Next(from Status, a Action) (Status, error) {
	to, ok := transitions[from][a]
	if !ok {
		return "", core.E(core.CodeInvalidState, "an agent in %s cannot %s", from, a)
	}
	return to, nil
}

// MaxNameLength bounds an agent's name.
const MaxNameLength = 200

// Limits are an agent's caps in USD base units (6 decimals); nil is no cap.
type Limits struct {
	PerTransaction *int64
	Daily          *int64
	Weekly         *int64
	Monthly        *int64
}

// Agent is a tenant-owned principal.
type Agent struct {
	ID          string
	TenantID    string
	Environment core.Environment
	Name        string
	Status      Status
	// WalletID is the agent's one Safe (purpose AGENT); "" until provisioned.
	WalletID    string
	Limits      Limits
	CreatedAt   time.Time
	UpdatedAt   time.Time
	SuspendedAt *time.Time
}

// ValidateName checks a create input's name.
func ValidateName(name string) (string, error) {
	n := strings.TrimSpace(name)
	switch {
	case n == "":
		return "", core.Invalid("name", "is required")
	case len(n) > MaxNameLength:
		return "", core.Invalid("name", "must be at most 200 characters")
	}
	return n, core.ValidateText("name", n)
}

// ForbiddenScopes are the scopes an agent key can never hold: docs/api.md Authentication 6's four,
// and the two that would let it regain them (auth.AgentForbiddenScopes, docs/decisions/tenancy.md).
var ForbiddenScopes = auth.AgentForbiddenScopes

// StripScopes is what an agent key may hold of the scopes asked for: the forbidden ones are
// dropped silently, and "*" stands for every other scope, so a root-style request still yields
// a key without them. The result is normalized.
func StripScopes(requested []auth.Scope) []auth.Scope { return auth.StripAgentForbidden(requested) }

func forbidden(s auth.Scope) bool { return auth.AgentForbidden(s) }

// RequireActive refuses a SUSPENDED agent (AGENT_SUSPENDED): it acts again once reactivated.
func (a Agent) RequireActive() error {
	if a.Status == StatusSuspended {
		return core.E(CodeSuspended, "agent %s is suspended; reactivate it to let it act again", a.ID).
			WithDetails(map[string]any{"agentId": a.ID})
	}
	return nil
}

// CanHaveCard is the rule for issuing an agent its card, whichever capability records it:
// one card per agent (AGENT_CARD_EXISTS naming the card it has, cardID when hasCard), an
// ACTIVE agent (AGENT_SUSPENDED) and a wallet for the card to spend from
// (AGENT_WALLET_REQUIRED).
func (a Agent) CanHaveCard(cardID string, hasCard bool) error {
	if hasCard {
		return core.E(CodeCardExists, "agent %s already has card %s", a.ID, cardID).
			WithDetails(map[string]any{"agentId": a.ID, "cardId": cardID})
	}
	if err := a.RequireActive(); err != nil {
		return err
	}
	if a.WalletID == "" {
		return core.E(CodeWalletRequired,
			"agent %s has no wallet: provision it with POST /v1/agents/%s/wallet, then issue its card once the wallet is DEPLOYED", a.ID, a.ID).
			WithDetails(map[string]any{"agentId": a.ID})
	}
	return nil
}
