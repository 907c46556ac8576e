package http

import "github.com/corridorhq/corridor/core/auth"

// agentEndpoints are the routes of agents (docs/api.md Endpoints, Agents).
func (h *agentsHandlers) agentEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	pathID := []Param{{Name: "id", In: "path"}}
	manage := []auth.Scope{auth.ScopeAgentsManage}
	read := []auth.Scope{auth.ScopeAgentsRead}
	routes := []Endpoint{
		{Method: "POST", Path: "/v1/agents", Grants: "agent", Summary: "Create an agent (ACTIVE, no limits, no wallet)", Tag: "agents",
			Auth: authRequired, SandboxOnly: true, Scopes: manage, Request: agentCreateRequest{},
			Responses: map[int]any{201: agentResponse{}}, Handler: h.createAgent},
		{Method: "GET", Path: "/v1/agents", Summary: "List agents of the caller's environment", Tag: "agents",
			Auth: authRequired, SandboxOnly: true, Scopes: read, Params: paging,
			Responses: map[int]any{200: agentListResponse{}}, Handler: h.listAgents},
		{Method: "GET", Path: "/v1/agents/{id}", Summary: "An agent", Tag: "agents",
			Auth: authRequired, SandboxOnly: true, Scopes: read, Params: pathID,
			Responses: map[int]any{200: agentResponse{}, 404: Envelope{}}, Handler: h.getAgent},
		{Method: "POST", Path: "/v1/agents/{id}/suspend", Summary: "Suspend an agent: its keys are declined AGENT_SUSPENDED from their next request (idempotent)", Tag: "agents",
			Auth: authRequired, SandboxOnly: true, Scopes: manage, Params: pathID,
			Responses: map[int]any{200: agentResponse{}, 404: Envelope{}}, Handler: h.suspendAgent},
		{Method: "POST", Path: "/v1/agents/{id}/reactivate", Summary: "Reactivate a suspended agent (idempotent)", Tag: "agents",
			Auth: authRequired, SandboxOnly: true, Scopes: manage, Params: pathID,
			Responses: map[int]any{200: agentResponse{}, 404: Envelope{}}, Handler: h.reactivateAgent},
		{Method: "POST", Path: "/v1/agents/{id}/keys", Grants: "agent_key", Summary: "Mint a key whose principal is the agent (plaintext once); agents:manage, keys:manage, policies:write and treasury:write are dropped silently", Tag: "agents",
			Auth: authRequired, SandboxOnly: true, Scopes: manage, Params: pathID, Request: agentKeyCreateRequest{},
			Responses: map[int]any{201: apiKeyCreateResponse{}, 404: Envelope{}}, Handler: h.createAgentKey, SecretFields: []string{"key"}},
		{Method: "GET", Path: "/v1/agents/{id}/limits", Summary: "An agent's spend limits", Tag: "agents",
			Auth: authRequired, SandboxOnly: true, Scopes: read, Params: pathID,
			Responses: map[int]any{200: agentLimitsResponse{}, 404: Envelope{}}, Handler: h.getAgentLimits},
		{Method: "PUT", Path: "/v1/agents/{id}/limits", Summary: "Set spend limits: only sent fields change, null clears, caps must be positive", Tag: "agents",
			Auth: authRequired, SandboxOnly: true, Scopes: manage, Params: pathID, Request: agentLimitsRequest{},
			Responses: map[int]any{200: agentLimitsResponse{}, 404: Envelope{}}, Handler: h.putAgentLimits},
		{Method: "POST", Path: "/v1/agents/{id}/wallet", Summary: "Provision the agent's one Safe (purpose AGENT): the predicted address is usable at once and a job deploys it", Tag: "agents",
			Auth: authRequired, SandboxOnly: true, Scopes: []auth.Scope{auth.ScopeAgentsManage, auth.ScopeWalletsWrite}, Params: pathID, Request: agentWalletRequest{},
			Responses: map[int]any{202: walletResponse{}, 404: Envelope{}, 503: Envelope{}}, Handler: h.provisionAgentWallet,
			AgentSuspendedConflict: true},
		{Method: "GET", Path: "/v1/agents/{id}/activity", Summary: "The agent's timeline, newest first: Safe payments from its wallet, its card's authorizations and policy decisions about it", Tag: "agents",
			Auth: authRequired, SandboxOnly: true, Scopes: read,
			Params: append([]Param{{Name: "limit", In: "query", Integer: true, Description: "1 to 100, default 50"},
				{Name: "cursor", In: "query", Description: "nextCursor of the previous page"}}, pathID...),
			Responses: map[int]any{200: agentActivityResponse{}, 404: Envelope{}}, Handler: h.agentActivity},
	}
	// An agent's card is a card: served when cards are (a card spend module settles it).
	if h.cardsEnabled {
		routes = append(routes, Endpoint{Method: "POST", Path: "/v1/agents/{id}/cards", Summary: "Issue the agent's one card on its DEPLOYED wallet: caps left out copy the agent's limits, null clears; its authorizations consume the agent's windows", Tag: "agents",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeAgentsManage, auth.ScopeCardsIssue}, Params: pathID, Request: agentCardRequest{}, SandboxOnly: true,
			Responses: map[int]any{201: cardResponse{}, 400: Envelope{}, 404: Envelope{}, 409: Envelope{}, 503: Envelope{}}, Prepare: h.issueAgentCard,
			AgentSuspendedConflict: true})
	}
	return routes
}
