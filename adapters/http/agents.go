package http

import (
	"context"
	"encoding/json"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/agents"
	"github.com/corridorhq/corridor/app/cards"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/card"
)

// agentsHandlers serve agents, their keys, limits, wallets and cards. now is the clock a new
// agent key's status is read at (the tenancy capability's, as for every key).
type agentsHandlers struct {
	svc          *agents.Service
	cards        agentCards // nil: cards are not in this deployment
	now          func() time.Time
	cardsEnabled bool // POST /v1/agents/{id}/cards is served when cards are
}

// agentCards issues an agent's card (POST /v1/agents/{id}/cards): the cards capability does,
// by the agents' rule for it.
type agentCards interface {
	ReadAgentCard(ctx context.Context, p auth.Principal, agentID string, limits card.LimitsPatch) (cards.AgentCardRead, error)
	RecordAgentCard(ctx context.Context, p auth.Principal, read cards.AgentCardRead) (card.Card, error)
}

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
		{Method: "POST", Path: "/v1/agents/{id}/keys", Grants: "agent_key", Summary: "Mint a key whose principal is the agent (plaintext once); agents:manage, keys:manage, members:manage, policies:write, treasury:write and twofactor:manage are dropped silently", Tag: "agents",
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

func (h *agentsHandlers) createAgent(c *fiber.Ctx) error {
	var req agentCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.CreateAgent(c.UserContext(), principal(c), req.Name)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toAgent(a))
}

func (h *agentsHandlers) listAgents(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := h.svc.ListAgents(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := agentListResponse{Agents: make([]agentResponse, len(list)), Total: total}
	for i, a := range list {
		out.Agents[i] = toAgent(a)
	}
	return c.JSON(out)
}

func (h *agentsHandlers) getAgent(c *fiber.Ctx) error {
	a, err := h.svc.GetAgent(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgent(a))
}

func (h *agentsHandlers) suspendAgent(c *fiber.Ctx) error {
	a, err := h.svc.SuspendAgent(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgent(a))
}

func (h *agentsHandlers) reactivateAgent(c *fiber.Ctx) error {
	a, err := h.svc.ReactivateAgent(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgent(a))
}

func (h *agentsHandlers) createAgentKey(c *fiber.Ctx) error {
	var req agentKeyCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in := agents.KeyInput{Name: req.Name, Scopes: req.Scopes}
	expiresAt, err := keyExpiry(req.ExpiresAt)
	if err != nil {
		return err
	}
	in.ExpiresAt = expiresAt
	k, err := h.svc.CreateAgentKey(c.UserContext(), principal(c), agentIDParam(c), in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(apiKeyCreateResponse{apiKeyResponse: toAPIKey(k.Key, h.now()), Key: k.Plaintext})
}

func (h *agentsHandlers) getAgentLimits(c *fiber.Ctx) error {
	a, err := h.svc.GetLimits(c.UserContext(), principal(c), agentIDParam(c))
	if err != nil {
		return err
	}
	return c.JSON(toAgentLimits(a.Limits))
}

func (h *agentsHandlers) putAgentLimits(c *fiber.Ctx) error {
	var req agentLimitsRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in, err := req.input(c.Body())
	if err != nil {
		return err
	}
	a, err := h.svc.PutLimits(c.UserContext(), principal(c), agentIDParam(c), in)
	if err != nil {
		return err
	}
	return c.JSON(toAgentLimits(a.Limits))
}

func (h *agentsHandlers) provisionAgentWallet(c *fiber.Ctx) error {
	var req agentWalletRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	w, err := h.svc.ProvisionWallet(c.UserContext(), principal(c), agentIDParam(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusAccepted).JSON(toWallet(w))
}

// issueAgentCard checks the agent and reads its wallet's Safe on chain outside the idempotent
// unit, then records the card inside it under the agent's row lock.
func (h *agentsHandlers) issueAgentCard(c *fiber.Ctx) (fiber.Handler, error) {
	var req agentCardRequest
	patch, err := limitsPatch(c.Body(), &req, &req.cardLimitsRequest)
	if err != nil {
		return nil, err
	}
	if h.cards == nil {
		return nil, core.E(core.CodeFeatureNotAvailable, "cards are not available in this deployment")
	}
	read, err := h.cards.ReadAgentCard(c.UserContext(), principal(c), agentIDParam(c), patch)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		card, err := h.cards.RecordAgentCard(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toCard(card))
	}, nil
}

func (h *agentsHandlers) agentActivity(c *fiber.Ctx) error {
	limit, err := queryInt(c, "limit", agents.DefaultActivityLimit, agent.MaxActivityLimit)
	if err != nil {
		return core.Invalid("limit", "must be an integer from 1 to 100")
	}
	if limit == 0 {
		return core.Invalid("limit", "must be an integer from 1 to 100")
	}
	page, err := h.svc.Activity(c.UserContext(), principal(c), agentIDParam(c), limit, c.Query("cursor"))
	if err != nil {
		return err
	}
	return c.JSON(toAgentActivity(page))
}

func agentIDParam(c *fiber.Ctx) string { return strings.TrimSpace(c.Params("id")) }

type agentCreateRequest struct {
	Name string `json:"name" oas:"required,maxLength=200"`
}

type agentLimitsResponse struct {
	PerTransactionUSD *string `json:"perTransactionUsd" oas:"required,nullable" description:"USD cap of one payment or card authorization; null: none"`
	DailyUSD          *string `json:"dailyUsd" oas:"required,nullable" description:"USD cap of settled spend per UTC day; null: none"`
	WeeklyUSD         *string `json:"weeklyUsd" oas:"required,nullable" description:"USD cap of settled spend per ISO week (Monday 00:00 UTC); null: none"`
	MonthlyUSD        *string `json:"monthlyUsd" oas:"required,nullable" description:"USD cap of settled spend per calendar month (UTC); null: none"`
}

type agentResponse struct {
	ID        string              `json:"id" oas:"required"`
	Name      string              `json:"name" oas:"required"`
	Status    string              `json:"status" oas:"required,enum=ACTIVE|SUSPENDED"`
	WalletID  *string             `json:"walletId" oas:"required,nullable" description:"the agent's Safe (purpose AGENT); null until provisioned"`
	Limits    agentLimitsResponse `json:"limits" oas:"required"`
	CreatedAt time.Time           `json:"createdAt" oas:"required"`
	UpdatedAt time.Time           `json:"updatedAt" oas:"required"`
}

type agentListResponse struct {
	Agents []agentResponse `json:"agents" oas:"required"`
	Total  int             `json:"total" oas:"required"`
}

// agentKeyCreateRequest: scopes an agent may not hold are dropped silently. expiresAt is
// optional in TEST; a LIVE agent key always expires, by default 90 days after minting.
type agentKeyCreateRequest struct {
	Name      string   `json:"name" oas:"required,maxLength=100"`
	Scopes    []string `json:"scopes" oas:"required"`
	ExpiresAt string   `json:"expiresAt,omitempty" oas:"format=date-time"`
}

// agentLimitsRequest: a field sent changes (null clears it), a field left out keeps its value.
type agentLimitsRequest struct {
	PerTransactionUSD *string `json:"perTransactionUsd,omitempty" oas:"nullable,pattern=^[0-9]+(\\.[0-9]+)?$"`
	DailyUSD          *string `json:"dailyUsd,omitempty" oas:"nullable,pattern=^[0-9]+(\\.[0-9]+)?$"`
	WeeklyUSD         *string `json:"weeklyUsd,omitempty" oas:"nullable,pattern=^[0-9]+(\\.[0-9]+)?$"`
	MonthlyUSD        *string `json:"monthlyUsd,omitempty" oas:"nullable,pattern=^[0-9]+(\\.[0-9]+)?$"`
}

// input tells a field left out from an explicit null, which the struct alone cannot: present
// lists the keys the (already strictly decoded) body holds.
func (r agentLimitsRequest) input(raw []byte) (agents.LimitsInput, error) {
	present := map[string]json.RawMessage{}
	if len(raw) > 0 {
		if err := json.Unmarshal(raw, &present); err != nil {
			return agents.LimitsInput{}, core.Invalid("body", "must be a JSON object")
		}
	}
	field := func(name string, v *string) agents.CapInput {
		_, set := present[name]
		return agents.CapInput{Set: set, Value: v}
	}
	return agents.LimitsInput{
		PerTransactionUSD: field("perTransactionUsd", r.PerTransactionUSD),
		DailyUSD:          field("dailyUsd", r.DailyUSD),
		WeeklyUSD:         field("weeklyUsd", r.WeeklyUSD),
		MonthlyUSD:        field("monthlyUsd", r.MonthlyUSD),
	}, nil
}

// agentWalletRequest is POST /v1/wallets's body with an optional name ("Agent <name>").
type agentWalletRequest struct {
	Name      string               `json:"name,omitempty" oas:"maxLength=100"`
	Owners    []walletOwnerRequest `json:"owners" oas:"required"`
	Threshold *int                 `json:"threshold,omitempty"`
	ChainID   *int64               `json:"chainId,omitempty"`
}

func (r agentWalletRequest) input() agents.WalletInput {
	return agents.WalletInput{Name: r.Name, Owners: ownerInputs(r.Owners), Threshold: r.Threshold, ChainID: r.ChainID}
}

// agentCardRequest documents POST /v1/agents/{id}/cards: the card's limits. A cap left out is a
// copy of the agent's cap at issue (later changes to the agent's limits do not follow), a cap
// sent as null is cleared, a value sets it; the MCC lists are as on any card.
type agentCardRequest struct {
	cardLimitsRequest
}

type agentActivityItem struct {
	Type        string    `json:"type" oas:"required,enum=payment|card_authorization|policy_decision"`
	ID          string    `json:"id" oas:"required" description:"the payment id, the card authorization id or the policy decision log id"`
	OccurredAt  time.Time `json:"occurredAt" oas:"required"`
	AmountUSD   string    `json:"amountUsd" oas:"required"`
	Status      string    `json:"status" oas:"required" description:"a payment's or card authorization's status; ALLOW or DENY for a decision"`
	Reason      *string   `json:"reason" oas:"required,nullable" description:"a payment's failureReason, a card authorization's declineReason (AGENT_LIMIT, AGENT_SUSPENDED, ...) or a decision's reason"`
	SHA256      *string   `json:"sha256" oas:"required,nullable" description:"decisions: the sha256 of the policy version decided with"`
	PolicyID    *string   `json:"policyId" oas:"required,nullable" description:"decisions, and card authorizations a policy decided"`
	ReferenceID *string   `json:"referenceId" oas:"required,nullable" description:"decisions: the payment decided on; card authorizations: the card"`
}

type agentActivityResponse struct {
	Items      []agentActivityItem `json:"items" oas:"required" description:"The agent's timeline, newest first: its payments, card authorizations and policy decisions (docs/agents.md)."`
	NextCursor *string             `json:"nextCursor" oas:"required,nullable" description:"pass as cursor for the next (older) page; null at the end"`
}

func usdPtr(v *int64) *string {
	if v == nil {
		return nil
	}
	s := core.FormatUSD(*v)
	return &s
}

func toAgent(a agent.Agent) agentResponse {
	return agentResponse{
		ID: a.ID, Name: a.Name, Status: string(a.Status), WalletID: strPtr(a.WalletID),
		Limits:    toAgentLimits(a.Limits),
		CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt,
	}
}

func toAgentLimits(l agent.Limits) agentLimitsResponse {
	return agentLimitsResponse{PerTransactionUSD: usdPtr(l.PerTransaction), DailyUSD: usdPtr(l.Daily),
		WeeklyUSD: usdPtr(l.Weekly), MonthlyUSD: usdPtr(l.Monthly)}
}

func toAgentActivity(p agents.ActivityPage) agentActivityResponse {
	out := agentActivityResponse{Items: make([]agentActivityItem, len(p.Items)), NextCursor: strPtr(p.NextCursor)}
	for i, it := range p.Items {
		out.Items[i] = agentActivityItem{Type: it.Kind, ID: it.ID, OccurredAt: it.At, AmountUSD: core.FormatUSD(it.AmountBaseUnits),
			Status: it.Status, Reason: strPtr(it.Reason), SHA256: strPtr(it.SHA256), PolicyID: strPtr(it.PolicyID),
			ReferenceID: strPtr(it.ReferenceID)}
	}
	return out
}
