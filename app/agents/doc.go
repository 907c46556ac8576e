// Package agents is the agents capability (docs/api.md Agents, docs/decisions/agents.md): tenant-owned
// principals with keys stripped of the scopes agents may not hold, USD spend limits checked
// against settled spend at Safe payment creation and consumed atomically by card
// authorizations, suspension enforced at the authentication layer, one Safe and one card per
// agent, and a merged activity timeline.
package agents
