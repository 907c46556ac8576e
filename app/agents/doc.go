// Package agents is the agents capability (docs/api.md Agents, docs/decisions/agents.md): tenant-owned
// principals with keys stripped of the scopes agents may not hold, USD spend limits checked
// against settled spend at Safe payment creation and consumed atomically by card
// authorizations, suspension enforced at the authentication layer, one Safe and one card per
// agent, and a merged activity timeline.
package agents

// sandboxMessage refuses LIVE callers: agents are complete only with their card, which is
// issued in the sandbox only, so LIVE reports the agents feature false and its routes answer
// 403 SANDBOX_ONLY rather than create what LIVE cannot finish.
const sandboxMessage = "agents are sandbox only: use a TEST key"
