package http

import (
	"encoding/json"
	"time"

	"github.com/corridorhq/corridor/app/agents"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/wallet"
)

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
	owners := make([]wallet.OwnerInput, len(r.Owners))
	for i, o := range r.Owners {
		owners[i] = wallet.OwnerInput{Address: o.Address, Role: o.Role, Label: o.Label}
	}
	return agents.WalletInput{Name: r.Name, Owners: owners, Threshold: r.Threshold, ChainID: r.ChainID}
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
