package http

import (
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/operations"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// headerOperatorToken carries the operator token of docs/decisions/operations.md on /v1/admin/... routes.
const headerOperatorToken = "X-Operator-Token"

// MinOperatorTokenLength is the shortest operator token configuration accepts.
const MinOperatorTokenLength = 32

// authenticateOperator admits a request carrying the configured operator token (constant-time
// comparison). No token configured: 503, the operator surface is off. Tenant credentials on an
// admin route are refused (401), with or without an operator token.
func (s *Server) authenticateOperator(c *fiber.Ctx) error {
	if s.cfg.OperatorToken == "" {
		return core.E(core.CodeServiceUnavailable, "operator routes are disabled: OPERATOR_TOKEN is not configured")
	}
	if c.Get(headerAPIKey) != "" || c.Get(fiber.HeaderAuthorization) != "" {
		if limited := s.limitAnonymous(c); limited != nil {
			return limited
		}
		return core.E(core.CodeUnauthenticated, "admin routes take %s only, never tenant credentials", headerOperatorToken)
	}
	got := sha256.Sum256([]byte(c.Get(headerOperatorToken)))
	want := sha256.Sum256([]byte(s.cfg.OperatorToken))
	if c.Get(headerOperatorToken) == "" || subtle.ConstantTimeCompare(got[:], want[:]) != 1 {
		if limited := s.limitAnonymous(c); limited != nil {
			return limited
		}
		return core.E(core.CodeUnauthenticated, "missing or wrong %s", headerOperatorToken)
	}
	return c.Next()
}

// operatorName identifies the approving operator in the durable record: a fingerprint of the
// configured token (one token today; several named tokens would each get their own).
func operatorName(token string) string {
	sum := sha256.Sum256([]byte(token))
	return "operator-token:" + hex.EncodeToString(sum[:6])
}

// operatorHandlers serve the operator's lookups across tenants: the admin list API. Like the
// operator actions they take the operator token only, and every lookup is audited.
type operatorHandlers struct {
	svc   *operations.Service
	actor operations.Actor
}

const operatorOnly = "operator lookup across tenants, authorized by the operator token, never a tenant credential"

func (h *operatorHandlers) operatorEndpoints() []Endpoint {
	unauthorized := map[int]any{401: Envelope{}, 503: Envelope{}}
	with := func(ok any) map[int]any {
		out := map[int]any{200: ok}
		for k, v := range unauthorized {
			out[k] = v
		}
		return out
	}
	return []Endpoint{
		{Method: "GET", Path: "/v1/admin/tenants", Public: operatorOnly, Summary: "Operator: look a tenant up by its id, its slug or a member's email (audited)", Tag: "admin",
			Auth: authOperator, Params: []Param{{Name: "q", In: "query", Description: "required: a tenant id, a slug or a member's email (any case); at most 320 characters"}},
			Responses: map[int]any{200: adminTenantListResponse{}, 400: Envelope{}, 401: Envelope{}, 503: Envelope{}}, Handler: h.findTenants},
		{Method: "GET", Path: "/v1/admin/stuck-work", Public: operatorOnly, Summary: "Operator: off-ramp payments waiting for an operator and relayer transactions unmined for 10 minutes (audited)", Tag: "admin",
			Auth: authOperator, Responses: with(adminStuckWorkResponse{}), Handler: h.stuckWork},
		{Method: "GET", Path: "/v1/admin/failed-jobs", Public: operatorOnly, Summary: "Operator: background jobs whose last attempt failed, retryable or discarded (audited)", Tag: "admin",
			Auth: authOperator, Responses: with(adminFailedJobListResponse{}), Handler: h.failedJobs},
		{Method: "GET", Path: "/v1/admin/disabled-webhook-endpoints", Public: operatorOnly, Summary: "Operator: webhook endpoints the service disabled after failing for the retry window (audited)", Tag: "admin",
			Auth: authOperator, Responses: with(adminDisabledEndpointListResponse{}), Handler: h.disabledEndpoints},
	}
}

type adminTenantResponse struct {
	ID        string    `json:"id" oas:"required"`
	Slug      string    `json:"slug" oas:"required" description:"The tenant's unique short name."`
	Name      string    `json:"name" oas:"required"`
	CreatedAt time.Time `json:"createdAt" oas:"required"`
	MatchedBy string    `json:"matchedBy" oas:"required,enum=id|slug|email" description:"What the query matched."`
	Members   int       `json:"members" oas:"required" description:"Active and pending members."`
}

type adminTenantListResponse struct {
	Tenants []adminTenantResponse `json:"tenants" oas:"required" description:"Oldest first, at most 100."`
}

func (h *operatorHandlers) findTenants(c *fiber.Ctx) error {
	found, err := h.svc.FindTenants(c.UserContext(), h.actor, c.Query("q"))
	if err != nil {
		return err
	}
	out := adminTenantListResponse{Tenants: make([]adminTenantResponse, len(found))}
	for i, m := range found {
		out.Tenants[i] = adminTenantResponse{ID: m.ID, Slug: m.Slug, Name: m.Name, CreatedAt: m.CreatedAt, MatchedBy: m.MatchedBy, Members: m.Members}
	}
	return c.JSON(out)
}

type adminPaymentResponse struct {
	ID          string    `json:"id" oas:"required"`
	TenantID    string    `json:"tenantId" oas:"required"`
	Environment string    `json:"environment" oas:"required,enum=TEST|LIVE"`
	Status      string    `json:"status" oas:"required"`
	HoldReasons []string  `json:"holdReasons" oas:"required"`
	Provider    string    `json:"provider" oas:"required" description:"The payout provider, empty before one was chosen."`
	UpdatedAt   time.Time `json:"updatedAt" oas:"required"`
}

type adminRelayerTransactionResponse struct {
	ChainID      int64     `json:"chainId" oas:"required"`
	Address      string    `json:"address" oas:"required"`
	Nonce        int64     `json:"nonce" oas:"required" description:"The relayer account nonce whose transactions are unmined."`
	FirstSentAt  time.Time `json:"firstSentAt" oas:"required"`
	Sends        int       `json:"sends" oas:"required" description:"The first send and every fee bump."`
	LatestTxHash string    `json:"latestTxHash" oas:"required"`
}

type adminStuckWorkResponse struct {
	Payments            []adminPaymentResponse            `json:"payments" oas:"required" description:"Off-ramp payments in ACTION_REQUIRED or COMPLIANCE_HOLD, longest waiting first."`
	RelayerTransactions []adminRelayerTransactionResponse `json:"relayerTransactions" oas:"required" description:"Relayer nonces unmined for 10 minutes, oldest first."`
}

func (h *operatorHandlers) stuckWork(c *fiber.Ctx) error {
	w, err := h.svc.ListStuckWork(c.UserContext(), h.actor)
	if err != nil {
		return err
	}
	out := adminStuckWorkResponse{Payments: make([]adminPaymentResponse, len(w.Payments)), RelayerTransactions: make([]adminRelayerTransactionResponse, len(w.Relayer))}
	for i, p := range w.Payments {
		out.Payments[i] = adminPaymentResponse{ID: p.ID, TenantID: p.TenantID, Environment: string(p.Environment), Status: p.Status,
			HoldReasons: append([]string{}, p.HoldReasons...), Provider: p.Provider, UpdatedAt: p.UpdatedAt}
	}
	for i, r := range w.Relayer {
		out.RelayerTransactions[i] = adminRelayerTransactionResponse{ChainID: r.ChainID, Address: r.Address, Nonce: r.Nonce,
			FirstSentAt: r.FirstSentAt, Sends: r.Sends, LatestTxHash: r.LatestTxHash}
	}
	return c.JSON(out)
}

type adminFailedJobResponse struct {
	ID          int64     `json:"id" oas:"required" example:"4211" description:"The job's id (River's), for retrying it."`
	Kind        string    `json:"kind" oas:"required"`
	State       string    `json:"state" oas:"required,enum=retryable|discarded" description:"retryable: tried again later; discarded: out of attempts, its work did not happen."`
	Args        string    `json:"args" oas:"required" example:"{\"deliveryId\":\"whd_06h0c8y3a9xq2v5m7k1d4f6g8j\"}" description:"The job's arguments (JSON), at most 200 characters."`
	Attempt     int       `json:"attempt" oas:"required" description:"Attempts made so far."`
	MaxAttempts int       `json:"maxAttempts" oas:"required" description:"Attempts allowed before the job is discarded."`
	LastError   string    `json:"lastError" oas:"required" example:"endpoint answered 503" description:"The last attempt's error, at most 300 characters."`
	At          time.Time `json:"at" oas:"required" description:"When the last attempt failed."`
}

type adminFailedJobListResponse struct {
	Jobs []adminFailedJobResponse `json:"jobs" oas:"required" description:"At most 100, the most recently created job first."`
}

func (h *operatorHandlers) failedJobs(c *fiber.Ctx) error {
	jobs, err := h.svc.ListFailedJobs(c.UserContext(), h.actor)
	if err != nil {
		return err
	}
	out := adminFailedJobListResponse{Jobs: make([]adminFailedJobResponse, len(jobs))}
	for i, j := range jobs {
		out.Jobs[i] = adminFailedJobResponse{ID: j.ID, Kind: j.Kind, State: j.State, Args: j.Args, Attempt: j.Attempt,
			MaxAttempts: j.MaxAttempts, LastError: j.LastError, At: j.At}
	}
	return c.JSON(out)
}

type adminDisabledEndpointResponse struct {
	ID           string     `json:"id" oas:"required"`
	TenantID     string     `json:"tenantId" oas:"required"`
	Environment  string     `json:"environment" oas:"required,enum=TEST|LIVE"`
	URL          string     `json:"url" oas:"required"`
	Reason       string     `json:"reason" oas:"required" description:"Why the service disabled the endpoint."`
	FailingSince *time.Time `json:"failingSince" oas:"required"`
	UpdatedAt    time.Time  `json:"updatedAt" oas:"required"`
}

type adminDisabledEndpointListResponse struct {
	Endpoints []adminDisabledEndpointResponse `json:"endpoints" oas:"required" description:"At most 100."`
}

func (h *operatorHandlers) disabledEndpoints(c *fiber.Ctx) error {
	eps, err := h.svc.ListDisabledEndpoints(c.UserContext(), h.actor)
	if err != nil {
		return err
	}
	out := adminDisabledEndpointListResponse{Endpoints: make([]adminDisabledEndpointResponse, len(eps))}
	for i, e := range eps {
		out.Endpoints[i] = toAdminDisabledEndpoint(e)
	}
	return c.JSON(out)
}

func toAdminDisabledEndpoint(e ports.DisabledEndpoint) adminDisabledEndpointResponse {
	return adminDisabledEndpointResponse{ID: e.ID, TenantID: e.TenantID, Environment: string(e.Environment), URL: e.URL,
		Reason: e.Reason, FailingSince: e.FailingSince, UpdatedAt: e.UpdatedAt}
}
