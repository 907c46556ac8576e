package http

import (
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/finance"
	"github.com/corridorhq/corridor/core/auth"
)

// statusEndpoints are the service's status as the caller's environment sees it (docs/architecture.md).
func (h *financeHandlers) statusEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "GET", Path: "/v1/status", Summary: "Service, database, per-environment chain and outside dependency health; a part that is down is reported, never a 5xx", Tag: "service",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeStatusRead},
			Responses: map[int]any{200: statusResponse{}}, Handler: h.getStatus},
	}
}

type chainHealthResponse struct {
	Environment         string  `json:"environment" oas:"required,enum=TEST|LIVE"`
	Status              string  `json:"status" oas:"required,enum=ok|degraded|unavailable|not_configured"`
	ChainID             *int64  `json:"chainId" oas:"required"`
	LatestBlock         *uint64 `json:"latestBlock" oas:"required" description:"null when the node could not be read"`
	IndexedThroughBlock *uint64 `json:"indexedThroughBlock" oas:"required" description:"the last block the ledger mirror has posted; null before its first run"`
	MirrorLagBlocks     *uint64 `json:"mirrorLagBlocks" oas:"required" description:"latestBlock minus indexedThroughBlock; past 600 the environment is degraded"`
	Problem             *string `json:"problem" oas:"required" description:"What is wrong with the chain in a sentence (the node cannot be read, the mirror trails the head); null when there is nothing to report."`
}

type dependencyHealthResponse struct {
	Name      string     `json:"name" oas:"required" description:"The dependency: payout:<provider>, sms or card_issuer."`
	Kind      string     `json:"kind" oas:"required,enum=payout_provider|sms|card_issuer"`
	Status    string     `json:"status" oas:"required,enum=ok|unavailable" description:"unavailable once several calls in a row got no answer; ok again at the next answer. While unavailable, only the operations that call it answer 503 PROVIDER_UNAVAILABLE (or wait in their jobs); everything else is served."`
	ChangedAt *time.Time `json:"changedAt" oas:"required,nullable" description:"When the current status began; null before the first call."`
	Problem   *string    `json:"problem" oas:"required,nullable" description:"What is wrong in a sentence while unavailable; null otherwise."`
}

type statusResponse struct {
	Status       string                     `json:"status" oas:"required,enum=ok|degraded"`
	Service      string                     `json:"service" oas:"required,enum=ok" description:"Always ok: the service answered."`
	Database     string                     `json:"database" oas:"required,enum=ok|unavailable" description:"ok while the database answers, else unavailable."`
	Chains       []chainHealthResponse      `json:"chains" oas:"required" description:"One chain per environment, with its indexer's lag."`
	Dependencies []dependencyHealthResponse `json:"dependencies" oas:"required" description:"The outside dependencies the service calls (payout providers, the SMS gateway, the card issuer), as their recent calls saw them."`
	CheckedAt    time.Time                  `json:"checkedAt" oas:"required"`
}

func (h *financeHandlers) getStatus(c *fiber.Ctx) error {
	rep, err := h.svc.Status(c.UserContext(), principal(c))
	if err != nil {
		return err
	}
	out := statusResponse{Status: rep.Status, Service: finance.HealthOK, Database: rep.Database, CheckedAt: rep.CheckedAt,
		Chains: make([]chainHealthResponse, len(rep.Chains))}
	for i, health := range rep.Chains {
		out.Chains[i] = chainHealthResponse{Environment: string(health.Environment), Status: health.Status, ChainID: health.ChainID,
			LatestBlock: health.LatestBlock, IndexedThroughBlock: health.IndexedThroughBlock, MirrorLagBlocks: health.MirrorLagBlocks,
			Problem: strPtr(health.Problem)}
	}
	out.Dependencies = make([]dependencyHealthResponse, len(rep.Dependencies))
	for i, d := range rep.Dependencies {
		out.Dependencies[i] = dependencyHealthResponse{Name: d.Name, Kind: d.Kind, Status: d.Status, ChangedAt: d.Since, Problem: strPtr(d.Problem)}
	}
	return c.JSON(out)
}
