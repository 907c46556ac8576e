package http

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/safepayments"
	"github.com/corridorhq/corridor/app/wallets"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// walletsHandlers serve wallets, handles and the secondary wallet surface. A
// secondary send is a Safe payment: payments proposes it.
type walletsHandlers struct {
	svc      *wallets.Service
	payments walletSends
}

// walletSends proposes the Safe payment of a secondary send (POST /v1/wallets/{id}/send).
type walletSends interface {
	ReadProposal(ctx context.Context, p auth.Principal, in safepay.Request) (safepayments.ProposalRead, error)
	Propose(ctx context.Context, p auth.Principal, read safepayments.ProposalRead) (safepay.Payment, error)
}

// walletEndpoints are the routes of wallets; the faucet's (faucet.go) and the handle
// directory's follow them in the route table.
func (h *walletsHandlers) walletEndpoints() []Endpoint {
	paging := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"}}
	pathID := []Param{{Name: "id", In: "path"}}
	return []Endpoint{
		{Method: "POST", Path: "/v1/wallets", Summary: "Create a Safe wallet: its predicted address is returned at once and a job deploys it. A secondary-shaped body (customer_id, currencies, and owner_address for a wallet the partner owns; without it a custodial wallet the service signs for) answers the secondary shape", Tag: "wallets",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeWalletsWrite}, Request: OneOf{walletCreateRequest{}, secondaryWalletCreateRequest{}},
			SecondaryBody: isSecondaryWalletBody,
			Responses:     map[int]any{201: OneOf{walletResponse{}, secondaryWalletResponse{}}, 429: Envelope{}, 503: Envelope{}}, Prepare: h.createWalletEither},
		{Method: "GET", Path: "/v1/wallets", Summary: "List wallets of the caller's environment", Tag: "wallets",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeWalletsRead}, Params: paging,
			Responses: map[int]any{200: walletListResponse{}}, Handler: h.listWallets},
		{Method: "GET", Path: "/v1/wallets/{id}", Summary: "A wallet with live USDC and ETH balances (null when the chain cannot be read)", Tag: "wallets",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeWalletsRead}, Params: pathID,
			Responses: map[int]any{200: walletDetailResponse{}, 404: Envelope{}}, Handler: h.getWallet},
	}
}

// directoryEndpoints are the routes of the handle directory. Claiming a handle (scope not shown
// in docs/api.md) takes wallets:write, as it publishes a wallet.
func (h *walletsHandlers) directoryEndpoints() []Endpoint {
	return []Endpoint{
		{Method: "PUT", Path: "/v1/directory/handle", Summary: "Claim a directory handle for one of the caller's wallets, or re-point it", Tag: "directory",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeWalletsWrite}, Request: handlePutRequest{},
			Responses: map[int]any{200: handleInfoResponse{}, 404: Envelope{}, 409: Envelope{}}, Handler: h.putHandle},
	}
}

func (h *walletsHandlers) createWallet(c *fiber.Ctx) error {
	var req walletCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	w, err := h.svc.CreateWallet(c.UserContext(), principal(c), req.input())
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toWallet(w))
}

func (h *walletsHandlers) listWallets(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	list, total, err := h.svc.ListWallets(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := walletListResponse{Wallets: make([]walletResponse, len(list)), Total: total}
	for i, w := range list {
		out.Wallets[i] = toWallet(w)
	}
	return c.JSON(out)
}

func (h *walletsHandlers) getWallet(c *fiber.Ctx) error {
	v, err := h.svc.GetWallet(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toWalletDetail(v))
}

// withRetryAfter sets Retry-After from a RATE_LIMITED error's details.retryAfterSeconds (a
// string or a whole number of seconds).
func withRetryAfter(c *fiber.Ctx, err error) error {
	var de *core.Error
	if errors.As(err, &de) && de.Code == core.CodeRateLimited {
		switch secs := de.Details["retryAfterSeconds"].(type) {
		case string:
			c.Set(fiber.HeaderRetryAfter, secs)
		case int:
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
		}
	}
	return err
}

func (h *walletsHandlers) putHandle(c *fiber.Ctx) error {
	var req handlePutRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	v, err := h.svc.PutHandle(c.UserContext(), principal(c),
		wallets.PutHandleInput{Handle: req.Handle, WalletID: req.WalletID, DisplayName: req.DisplayName})
	if err != nil {
		return err
	}
	return c.JSON(toHandleInfo(v))
}

type walletOwnerRequest struct {
	Address string  `json:"address" oas:"required,pattern=^0x[0-9a-fA-F]{40}$"`
	Role    string  `json:"role" oas:"required,enum=ADMIN_OWNER|FINANCE_OWNER|MERCHANT_OPERATOR|AGENT"`
	Label   *string `json:"label,omitempty" oas:"maxLength=100"`
}

// ownerInputs are a wallet request's owners as the domain takes them: a wallet's, an agent's
// wallet's and a treasury account's owners are given alike.
func ownerInputs(owners []walletOwnerRequest) []wallet.OwnerInput {
	out := make([]wallet.OwnerInput, len(owners))
	for i, o := range owners {
		out[i] = wallet.OwnerInput{Address: o.Address, Role: o.Role, Label: o.Label}
	}
	return out
}

type walletCreateRequest struct {
	Name      string               `json:"name" oas:"required,maxLength=100"`
	Owners    []walletOwnerRequest `json:"owners" oas:"required"`
	Threshold *int                 `json:"threshold,omitempty"`
	ChainID   *int64               `json:"chainId,omitempty"`
}

func (r walletCreateRequest) input() wallets.CreateWalletInput {
	return wallets.CreateWalletInput{Name: r.Name, Owners: ownerInputs(r.Owners), Threshold: r.Threshold, ChainID: r.ChainID}
}

type walletOwnerResponse struct {
	Address string  `json:"address" oas:"required"`
	Role    string  `json:"role" oas:"required,enum=ADMIN_OWNER|FINANCE_OWNER|MERCHANT_OPERATOR|AGENT"`
	Label   *string `json:"label" oas:"required"`
}

// walletResponse is docs/api.md's Wallet without balances (lists), plus failureReason, null unless
// the deployment FAILED.
type walletResponse struct {
	ID               string                `json:"id" oas:"required"`
	Address          string                `json:"address" oas:"required"`
	Status           string                `json:"status" oas:"required,enum=PENDING_DEPLOYMENT|DEPLOYING|DEPLOYED|FAILED"`
	ChainID          int64                 `json:"chainId" oas:"required"`
	Threshold        int                   `json:"threshold" oas:"required"`
	PredictedAddress bool                  `json:"predictedAddress" oas:"required" description:"True until the wallet is DEPLOYED: address is where the deployment job will put the Safe (safe to fund already); false once it is there."`
	Name             string                `json:"name" oas:"required"`
	Purpose          string                `json:"purpose" oas:"required,enum=GENERAL|AGENT|TREASURY|ESCROW" description:"What the wallet is for: GENERAL (created by the partner), AGENT (an agent's own), TREASURY (a treasury bucket) or ESCROW (an invoice's hold Safe)."`
	Owners           []walletOwnerResponse `json:"owners" oas:"required"`
	FailureReason    *string               `json:"failureReason" oas:"required"`
	CreatedAt        time.Time             `json:"createdAt" oas:"required"`
}

type balanceResponse struct {
	Asset    string `json:"asset" oas:"required,enum=usdc|eth"`
	Amount   string `json:"amount" oas:"required"`
	Decimals int32  `json:"decimals" oas:"required"`
	// Held and Available are the USDC line's: what open card authorizations on the wallet's cards
	// hold (still in the Safe, not spendable by a payment), and the amount less it.
	Held      *string `json:"held,omitempty" description:"USDC line only: what approved, uncaptured card authorizations on the wallet's cards hold; it is still in the Safe, but a Safe payment or send may not spend it"`
	Available *string `json:"available,omitempty" description:"USDC line only: amount less held (never below 0), what a Safe payment or send from the wallet may spend now"`
}

// walletDetailResponse is the get-one Wallet: balances are live, or null when the chain could
// not be read.
type walletDetailResponse struct {
	walletResponse
	Balances *[]balanceResponse `json:"balances" oas:"required" description:"The wallet's live balances (USDC and ETH) read from the chain; null when the chain cannot be read."` // pointer: documented as nullable
}

type walletListResponse struct {
	Wallets []walletResponse `json:"wallets" oas:"required" description:"The wallets; the page asked for (skip/take)."`
	Total   int              `json:"total" oas:"required"`
}

func toWallet(w wallet.Wallet) walletResponse {
	owners := make([]walletOwnerResponse, len(w.Owners))
	for i, o := range w.Owners {
		owners[i] = walletOwnerResponse{Address: o.Address, Role: string(o.Role), Label: strPtr(o.Label)}
	}
	return walletResponse{
		ID: w.ID, Address: w.Address, Status: string(w.Status), ChainID: w.ChainID, Threshold: w.Threshold,
		PredictedAddress: w.PredictedAddress(), Name: w.Name, Purpose: string(w.Purpose), Owners: owners,
		FailureReason: strPtr(w.FailureReason), CreatedAt: w.CreatedAt,
	}
}

func toWalletDetail(v wallets.WalletView) walletDetailResponse {
	out := walletDetailResponse{walletResponse: toWallet(v.Wallet)}
	if v.Balances != nil {
		balances := make([]balanceResponse, len(v.Balances))
		for i, b := range v.Balances {
			balances[i] = balanceResponse{Asset: string(b.Asset), Amount: wallet.FormatBigAmount(b.Asset, b.AmountBaseUnits), Decimals: b.Asset.Decimals()}
			if b.Asset == wallet.AssetUSDC {
				balances[i].Held = strPtr(wallet.FormatBigAmount(b.Asset, big.NewInt(v.HeldUSDC)))
				balances[i].Available = strPtr(wallet.FormatBigAmount(b.Asset, v.AvailableUSDC()))
			}
		}
		out.Balances = &balances
	}
	return out
}

type handlePutRequest struct {
	Handle      string  `json:"handle" oas:"required,pattern=^@?[A-Za-z0-9][A-Za-z0-9_-]{1,30}[A-Za-z0-9]$"`
	WalletID    string  `json:"walletId" oas:"required"`
	DisplayName *string `json:"displayName,omitempty" oas:"maxLength=100"`
}

type handleInfoResponse struct {
	Handle      string  `json:"handle" oas:"required"`
	DisplayName *string `json:"displayName" oas:"required"`
	Address     string  `json:"address" oas:"required"`
	ChainID     int64   `json:"chainId" oas:"required"`
	Verified    bool    `json:"verified" oas:"required"`
}

func toHandleInfo(v wallets.HandleView) handleInfoResponse {
	return handleInfoResponse{Handle: v.Handle.Handle, DisplayName: strPtr(v.Handle.DisplayName),
		Address: v.Wallet.Address, ChainID: v.Wallet.ChainID, Verified: v.Handle.Verified}
}

// secondaryEndpoints are the wallet routes of the secondary surface (docs/api.md "Secondary
// documented shapes", docs/decisions/checkout.md): snake_case, errors in the secondary shape, mapped onto wallets,
// Safe payments and the ledger. POST /v1/wallets is shared with the canonical surface and
// stays in walletEndpoints (its body's shape selects the surface).
func (h *walletsHandlers) secondaryEndpoints() []Endpoint {
	pathID := []Param{{Name: "id", In: "path", Description: "the wallet's id (wal_…)"}}
	history := []Param{
		{Name: "limit", In: "query", Integer: true, Description: "1 to 100, default 100"},
		{Name: "offset", In: "query", Integer: true, Description: "0 to 1000"},
		{Name: "currency", In: "query", Description: "USDC"},
		{Name: "type", In: "query", Description: "payment (received), withdrawal (sent) or refund"},
		{Name: "status", In: "query", Description: "awaiting_signature, signing, ready_to_execute, executing, completed, failed or cancelled"},
	}
	dates := []Param{
		{Name: "from_date", In: "query", Description: "RFC 3339 instant or YYYY-MM-DD (inclusive)"},
		{Name: "to_date", In: "query", Description: "RFC 3339 instant (exclusive) or YYYY-MM-DD (inclusive)"},
	}
	read := []auth.Scope{auth.ScopeWalletsRead, auth.ScopePaymentsRead}
	return []Endpoint{
		{Method: "GET", Path: "/v1/wallets/{id}/balance", Summary: "Secondary: a wallet's live balances with their USD value", Tag: "secondary",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopeWalletsRead}, Params: pathID, SecondaryErrors: true,
			Responses: map[int]any{200: secondaryBalanceResponse{}, 404: secondaryErrorResponse{}, 503: secondaryErrorResponse{}}, Handler: h.secondaryBalance},
		{Method: "GET", Path: "/v1/wallets/{id}/transactions", Summary: "Secondary: a wallet's Safe payments and on-chain USDC movements, newest first", Tag: "secondary",
			Auth: authRequired, Scopes: read, Params: append(pathID, history...), SecondaryErrors: true,
			Responses: map[int]any{200: secondaryTransactionListResponse{}, 404: secondaryErrorResponse{}}, Handler: h.secondaryWalletTransactions},
		{Method: "POST", Path: "/v1/wallets/{id}/send", Summary: "Secondary: send USDC to an address (a Safe payment awaiting its owners' signatures)", Tag: "secondary",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsCreate, auth.ScopeWalletsRead}, Params: pathID, Request: secondarySendRequest{}, SecondaryErrors: true,
			Responses: map[int]any{201: secondarySendResponse{}, 403: secondaryErrorResponse{}, 404: secondaryErrorResponse{}, 503: secondaryErrorResponse{}}, Prepare: h.secondarySend},
		{Method: "GET", Path: "/v1/transactions", Summary: "Secondary: every wallet's Safe payments and on-chain USDC movements, newest first", Tag: "secondary",
			Auth: authRequired, Scopes: read, Params: append(append([]Param{}, history...), dates...), SecondaryErrors: true,
			Responses: map[int]any{200: secondaryTransactionListResponse{}}, Handler: h.secondaryTransactions},
	}
}

// The secondary surface (docs/decisions/checkout.md, docs/api.md "Secondary surface"): thin mappings onto the
// canonical use cases; nothing here stores anything of its own.

// createWalletEither serves POST /v1/wallets for both surfaces: the body's shape selects one
// (the register step marked a secondary body already). It is prepared: a custodial wallet's key
// is made by the custody signer before the unit of work (docs/decisions/reliability.md).
func (h *walletsHandlers) createWalletEither(c *fiber.Ctx) (fiber.Handler, error) {
	if secondary, _ := c.Locals(localSecondary).(bool); secondary {
		return h.createSecondaryWallet(c)
	}
	return h.createWallet, nil
}

// secondaryCurrencies are the currencies a secondary wallet names, in the order answered.
var secondaryCurrencies = []string{"USDC", "ETH"}

// createSecondaryWallet creates a 1-of-1 Safe named after the customer, owned by owner_address
// when given, else by a fresh custody key (a custodial wallet, docs/decisions/wallets.md); every currency asked for is
// held at the Safe's one address.
func (h *walletsHandlers) createSecondaryWallet(c *fiber.Ctx) (fiber.Handler, error) {
	var req secondaryWalletCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	customer, currencies, err := validSecondaryWallet(req)
	if err != nil {
		return nil, err
	}
	answer := func(c *fiber.Ctx, w wallet.Wallet) error {
		out := secondaryWalletResponse{WalletID: w.ID, Addresses: map[string]string{}, CreatedAt: w.CreatedAt}
		for _, cur := range currencies {
			out.Addresses[cur] = w.Address
		}
		return c.Status(fiber.StatusCreated).JSON(out)
	}
	if req.OwnerAddress == "" {
		key, err := h.svc.ReadCustodyKey(c.UserContext(), principal(c))
		if err != nil {
			return nil, err
		}
		return func(c *fiber.Ctx) error {
			w, err := h.svc.CreateCustodialWallet(c.UserContext(), principal(c), key, customer)
			if err != nil {
				return err
			}
			return answer(c, w)
		}, nil
	}
	return func(c *fiber.Ctx) error {
		threshold := 1
		w, err := h.svc.CreateWallet(c.UserContext(), principal(c), wallets.CreateWalletInput{
			Name: customer, Threshold: &threshold,
			Owners: []wallet.OwnerInput{{Address: req.OwnerAddress, Role: "ADMIN_OWNER"}},
		})
		if err != nil {
			return err
		}
		return answer(c, w)
	}, nil
}

// validSecondaryWallet checks the secondary body: the customer, the currencies (deduplicated,
// upper case) and, when present, the owner's address.
func validSecondaryWallet(req secondaryWalletCreateRequest) (string, []string, error) {
	errs := core.FieldErrors{}
	customer := strings.TrimSpace(req.CustomerID)
	if customer == "" {
		errs.Add("customer_id", "is required")
	}
	var currencies []string
	if len(req.Currencies) == 0 {
		errs.Add("currencies", "is required: a non-empty array of USDC, ETH")
	}
	for _, cur := range req.Currencies {
		up := strings.ToUpper(strings.TrimSpace(cur))
		if !slices.Contains(secondaryCurrencies, up) {
			errs.Add("currencies", "must hold only USDC and ETH")
			break
		}
		if !slices.Contains(currencies, up) {
			currencies = append(currencies, up)
		}
	}
	if req.OwnerAddress != "" && !core.IsEVMAddress(req.OwnerAddress) {
		errs.Add("owner_address", "must be the 0x address of the key that owns the Safe, or be left out for a wallet the service signs for")
	}
	return customer, currencies, errs.Err()
}

// secondaryBalance answers the wallet's live on-chain balances; USDC counts 1:1 in USD.
func (h *walletsHandlers) secondaryBalance(c *fiber.Ctx) error {
	v, err := h.svc.GetWallet(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	if v.Balances == nil {
		return core.E(core.CodeChainUnavailable, "the chain node did not answer the balance read; retry shortly").Transient(core.RetryDependency)
	}
	out := secondaryBalanceResponse{WalletID: v.Wallet.ID, Balances: []secondaryBalanceLine{}}
	total := int64(0)
	for _, b := range v.Balances {
		line := secondaryBalanceLine{Currency: strings.ToUpper(string(b.Asset)), Amount: wallet.FormatBigAmount(b.Asset, b.AmountBaseUnits)}
		if b.Asset == wallet.AssetUSDC {
			usd := line.Amount
			line.USDValue = &usd
			if b.AmountBaseUnits.IsInt64() {
				total += b.AmountBaseUnits.Int64()
			}
		}
		out.Balances = append(out.Balances, line)
	}
	out.TotalUSDValue = wallet.FormatBigAmount(wallet.AssetUSDC, big.NewInt(total))
	return c.JSON(out)
}

// secondarySend proposes a Safe payment of USDC to an address (the prepared propose of POST
// /v1/payments): the wallet's live USDC balance, less what open card authorizations hold on it,
// must cover it (insufficient_funds), and the answer is the payment awaiting its owners'
// signatures.
func (h *walletsHandlers) secondarySend(c *fiber.Ctx) (fiber.Handler, error) {
	p := principal(c)
	if err := p.Require(auth.ScopePaymentsCreate, auth.ScopeWalletsRead); err != nil {
		return nil, err
	}
	var req secondarySendRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	errs := core.FieldErrors{}
	if !strings.EqualFold(strings.TrimSpace(req.Currency), "USDC") {
		errs.Add("currency", "must be USDC")
	}
	units, err := core.ParseAmount("amount", 6, req.Amount.String())
	switch {
	case err != nil:
		errs.Add("amount", "must be a positive decimal with at most 6 fraction digits")
	case units <= 0:
		errs.Add("amount", "must be greater than 0")
	}
	if !core.IsEVMAddress(strings.TrimSpace(req.Destination)) {
		errs.Add("destination", "must be a 0x address of 40 hex digits")
	}
	note := ""
	if req.Note != nil {
		note = *req.Note
		if len([]rune(note)) > safepay.MaxMemoLength {
			errs.Add("note", "must be at most "+strconv.Itoa(safepay.MaxMemoLength)+" characters")
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	walletID := strings.TrimSpace(c.Params("id"))
	v, err := h.svc.GetWallet(c.UserContext(), p, walletID)
	if err != nil {
		return nil, err
	}
	if v.Balances == nil {
		return nil, core.E(core.CodeChainUnavailable, "the chain node did not answer the balance read; retry shortly").Transient(core.RetryDependency)
	}
	if err := sendCovered(v, units, req.Amount.String()); err != nil {
		return nil, err
	}
	in := safepay.Request{
		SourceWalletID: walletID, AmountValue: req.Amount.String(), AmountAsset: "usdc", Memo: note,
		Destination: &safepay.DestinationInput{Type: "address", Address: strings.TrimSpace(req.Destination), ChainID: &v.Wallet.ChainID},
	}
	if req.TwofaChallengeID != nil {
		in.TwofaChallengeID = *req.TwofaChallengeID
	}
	read, err := h.payments.ReadProposal(c.UserContext(), p, in)
	if err != nil {
		return nil, secondaryChallengeField(err)
	}
	return func(c *fiber.Ctx) error {
		pay, err := h.payments.Propose(c.UserContext(), principal(c), read)
		if err != nil {
			return secondaryChallengeField(err)
		}
		return c.Status(fiber.StatusCreated).JSON(toSecondarySend(pay, v.Wallet.Custodial()))
	}, nil
}

// sendCovered refuses a send the wallet's live USDC, less what open card authorizations hold on
// it, does not cover (insufficient_funds, with available, held and requested).
func sendCovered(v wallets.WalletView, units int64, requested string) error {
	free := v.AvailableUSDC()
	if free == nil || free.Cmp(big.NewInt(units)) >= 0 {
		return nil
	}
	msg := "the wallet's USDC balance does not cover the amount"
	if v.HeldUSDC > 0 {
		msg = "the wallet's USDC balance, less what open card authorizations hold, does not cover the amount"
	}
	return (&core.Error{Code: core.CodeInsufficientFunds, Message: msg}).
		WithDetails(map[string]any{"available": wallet.FormatBigAmount(wallet.AssetUSDC, free),
			"held": wallet.FormatBigAmount(wallet.AssetUSDC, big.NewInt(v.HeldUSDC)), "requested": requested})
}

// secondaryChallengeField makes a TWOFA_REQUIRED refusal name this route's body field,
// twofa_challenge_id, where the canonical routes' message says twofaChallengeId. The error is
// changed in place (it is made fresh for each refusal) so whatever wraps it, such as the
// marker that commits the new challenge with the refusal, still wraps it.
func secondaryChallengeField(err error) error {
	var e *core.Error
	if errors.As(err, &e) && e.Code == twofactor.CodeRequired {
		e.Message = strings.ReplaceAll(e.Message, "twofaChallengeId", "twofa_challenge_id")
	}
	return err
}

// toSecondarySend answers a send. A custodial wallet's payment is signed by the service right
// after its proposal commits, so it is on its way even while it awaits that signature.
func toSecondarySend(pay safepay.Payment, custodial bool) secondarySendResponse {
	out := secondarySendResponse{TransactionID: pay.ID, Status: secondaryStatus(pay.Status), TransactionHash: strPtr(pay.ExecutedTxHash)}
	if pay.Status == safepay.StatusAwaitingSignature && custodial {
		at := pay.UpdatedAt.Add(time.Minute).UTC()
		out.EstimatedConfirmation = &at
	}
	switch pay.Status {
	case safepay.StatusReadyToExecute, safepay.StatusExecuting:
		// Executed by the relayer and confirmed within about a minute on the environment's chain.
		at := pay.UpdatedAt.Add(time.Minute).UTC()
		out.EstimatedConfirmation = &at
	case safepay.StatusCompleted:
		at := pay.UpdatedAt.UTC()
		out.EstimatedConfirmation = &at
	}
	return out
}

// secondaryStatus is a Safe payment status in the secondary vocabulary (its lower case;
// CREATED is never shown, a payment is AWAITING_SIGNATURE once stored).
func secondaryStatus(st safepay.Status) string {
	if st == safepay.StatusCreated {
		return "awaiting_signature"
	}
	return strings.ToLower(string(st))
}

// secondaryQuery is the query of the secondary transaction lists.
type secondaryQuery struct {
	limit, offset    int
	currency, typ    string
	status           string
	fromDate, toDate time.Time
}

// secondaryStatuses are the statuses a transaction shows (a payment received is completed).
var secondaryStatuses = []string{"awaiting_signature", "signing", "ready_to_execute", "executing", "pending", "completed", "failed", "cancelled"}

func parseSecondaryQuery(c *fiber.Ctx) (secondaryQuery, error) {
	errs := core.FieldErrors{}
	q := secondaryQuery{}
	var err error
	if q.limit, err = queryInt(c, "limit", 100, 100); err != nil || (q.limit == 0 && c.Query("limit") != "") {
		errs.Add("limit", "must be an integer from 1 to 100")
	}
	if q.offset, err = queryInt(c, "offset", 0, MaxSecondaryHistory); err != nil {
		errs.Add("offset", "must be an integer from 0 to "+strconv.Itoa(MaxSecondaryHistory))
	}
	if q.currency = strings.ToUpper(strings.TrimSpace(c.Query("currency"))); q.currency != "" && q.currency != "USDC" {
		errs.Add("currency", "must be USDC")
	}
	if q.typ = strings.TrimSpace(c.Query("type")); q.typ != "" && !slices.Contains([]string{"payment", "withdrawal", "refund"}, q.typ) {
		errs.Add("type", "must be one of payment, withdrawal, refund")
	}
	if q.status = strings.TrimSpace(c.Query("status")); q.status != "" && !slices.Contains(secondaryStatuses, q.status) {
		errs.Add("status", "must be one of "+strings.Join(secondaryStatuses, ", "))
	}
	q.fromDate, q.toDate = parseDateWindow(c, errs)
	return q, errs.Err()
}

// parseDateWindow reads from_date (inclusive) and to_date (exclusive as an instant, inclusive
// as a whole YYYY-MM-DD day) into errs' fields; zero times when absent.
func parseDateWindow(c *fiber.Ctx, errs core.FieldErrors) (from, to time.Time) {
	for _, f := range []struct {
		name string
		dst  *time.Time
		day  time.Duration
	}{{"from_date", &from, 0}, {"to_date", &to, 24 * time.Hour}} {
		raw := strings.TrimSpace(c.Query(f.name))
		if raw == "" {
			continue
		}
		if t, err := time.Parse(time.RFC3339Nano, raw); err == nil {
			*f.dst = t
		} else if d, err := time.Parse(time.DateOnly, raw); err == nil {
			*f.dst = d.Add(f.day) // a to_date day is inclusive
		} else {
			errs.Add(f.name, "must be an RFC 3339 instant or a YYYY-MM-DD date")
		}
	}
	if !from.IsZero() && !to.IsZero() && !from.Before(to) {
		errs.Add("to_date", "must be after from_date")
	}
	return from, to
}

// MaxSecondaryHistory is how deep the secondary lists page (offset at most 10000): every row is
// counted and reachable by narrowing the dates, and a page reads at most offset+limit rows of
// each source along its index.
const MaxSecondaryHistory = ports.MaxActivitySkip

func (h *walletsHandlers) secondaryWalletTransactions(c *fiber.Ctx) error {
	return h.secondaryTransactionList(c, strings.TrimSpace(c.Params("id")))
}

func (h *walletsHandlers) secondaryTransactions(c *fiber.Ctx) error {
	return h.secondaryTransactionList(c, "")
}

// secondaryTransactionList answers a page of a wallet's (or every wallet's) transactions: it
// decodes the query, asks the wallets capability's Activity use case (which checks the scopes
// and pages the merged Safe payments and ledger mirror lines in the store) and encodes the
// page in the secondary shape.
func (h *walletsHandlers) secondaryTransactionList(c *fiber.Ctx, walletID string) error {
	q, err := parseSecondaryQuery(c)
	if err != nil {
		return err
	}
	page, err := h.svc.Activity(c.UserContext(), principal(c), ports.ActivityQuery{WalletID: walletID, Type: q.typ,
		Status: strings.ToUpper(q.status), From: q.fromDate, To: q.toDate}, ports.Page{Skip: q.offset, Take: q.limit})
	if err != nil {
		return err
	}
	out := secondaryTransactionListResponse{Data: make([]secondaryTransaction, 0, len(page.Rows)), Total: page.Total,
		HasMore: page.HasMore}
	for _, r := range page.Rows {
		out.Data = append(out.Data, secondaryTransaction{ID: r.ID, WalletID: strPtr(r.WalletID), Type: r.Type, Currency: "USDC",
			Amount: wallet.FormatAmount(wallet.AssetUSDC, r.AmountBaseUnits), Status: strings.ToLower(r.Status),
			TransactionHash: strPtr(r.TxHash), Counterparty: strPtr(r.Counterparty), Note: strPtr(r.Note), CreatedAt: r.CreatedAt})
	}
	return c.JSON(out)
}

// The secondary surface's DTOs (docs/api.md "Secondary documented shapes", docs/decisions/checkout.md): snake_case fields,
// each mapped onto the canonical wallets, Safe payments and ledger (docs/api.md, "Secondary
// surface").

// secondaryErrorResponse is the secondary error shape: {error: {code, message, details}}.
type secondaryErrorResponse struct {
	Error secondaryErrorBody `json:"error" oas:"required"`
}

type secondaryErrorBody struct {
	// Code is documented as the SecondaryErrorCode enum (secondaryErrorCodeSchema), narrowed per
	// status by SecondaryErrorBody<status>.
	Code    string         `json:"code" oas:"required"`
	Message string         `json:"message" oas:"required"`
	Details map[string]any `json:"details" oas:"required" description:"the canonical details, plus canonical_code and request_id"`
}

// secondaryCodes maps canonical codes onto the five secondary codes; any other code answers
// in lower case (validation_failed, insufficient_scope, chain_unavailable, …).
var secondaryCodes = map[core.Code]string{
	core.CodeUnauthenticated:           "invalid_api_key",
	core.CodeInsufficientFunds:         "insufficient_funds",
	core.CodeRateLimited:               "rate_limit_exceeded",
	core.CodeWalletNotFound:            "wallet_not_found",
	safepay.CodeDestinationNotResolved: "invalid_address",
}

// addressFields are the body fields whose VALIDATION_FAILED answers invalid_address.
var addressFields = []string{"destination", "owner_address", "address"}

// secondaryCode is the secondary code of a canonical error.
func secondaryCode(de *core.Error) string {
	if code, ok := secondaryCodes[de.Code]; ok {
		return code
	}
	if de.Code == core.CodeValidationFailed {
		if fields, ok := de.Details["fields"].(map[string]any); ok {
			for _, f := range addressFields {
				if _, bad := fields[f]; bad {
					return "invalid_address"
				}
			}
		}
	}
	return strings.ToLower(string(de.Code))
}

// toSecondaryError renders a canonical error in the secondary shape.
func toSecondaryError(de *core.Error, requestID string) secondaryErrorResponse {
	details := make(map[string]any, len(de.Details)+2)
	for k, v := range de.Details {
		details[k] = v
	}
	details["canonical_code"] = string(de.Code)
	details["request_id"] = requestID
	return secondaryErrorResponse{Error: secondaryErrorBody{Code: secondaryCode(de), Message: de.Message, Details: details}}
}

// secondaryWalletCreateRequest is POST /v1/wallets in the secondary shape: SPEC's customer_id
// and currencies make a custodial wallet, a 1-of-1 Safe owned by a key the service's custody
// signer holds (docs/decisions/wallets.md). owner_address, this service's one addition, makes it non-custodial: the
// partner's key owns the Safe and signs its payments.
type secondaryWalletCreateRequest struct {
	CustomerID   string   `json:"customer_id" oas:"required,maxLength=100" description:"the partner's customer; kept as the wallet's name"`
	Currencies   []string `json:"currencies" oas:"required" description:"USDC and/or ETH; both live at the wallet's one Safe address"`
	OwnerAddress string   `json:"owner_address,omitempty" oas:"pattern=^0x[0-9a-fA-F]{40}$" description:"optional: the 1-of-1 Safe's owner, a key the partner holds (non-custodial); absent, the service holds the owner key and signs sends itself"`
}

// isSecondaryWalletBody reports whether a POST /v1/wallets body is the secondary shape: a JSON
// object naming customer_id, currencies or owner_address (canonical bodies use camelCase).
func isSecondaryWalletBody(body []byte) bool {
	var fields map[string]json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&fields); err != nil {
		return false
	}
	for _, k := range []string{"customer_id", "currencies", "owner_address"} {
		if _, ok := fields[k]; ok {
			return true
		}
	}
	return false
}

type secondaryWalletResponse struct {
	WalletID  string            `json:"wallet_id" oas:"required"`
	Addresses map[string]string `json:"addresses" oas:"required" description:"currency → deposit address (the wallet's Safe)"`
	CreatedAt time.Time         `json:"created_at" oas:"required"`
}

type secondaryBalanceLine struct {
	Currency string  `json:"currency" oas:"required,enum=USDC|ETH"`
	Amount   string  `json:"amount" oas:"required" description:"a decimal string"`
	USDValue *string `json:"usd_value" oas:"required" description:"USDC counts 1:1; null where no price is held (ETH)"`
}

type secondaryBalanceResponse struct {
	WalletID      string                 `json:"wallet_id" oas:"required"`
	Balances      []secondaryBalanceLine `json:"balances" oas:"required" description:"One line per currency the wallet holds."`
	TotalUSDValue string                 `json:"total_usd_value" oas:"required" description:"the sum of the known usd_value"`
}

// secondarySendRequest is POST /v1/wallets/{id}/send. amount is a decimal string or a JSON
// number (its text is parsed exactly, never through a float).
type secondarySendRequest struct {
	Currency    string      `json:"currency" oas:"required,enum=USDC" description:"USDC, the only currency sent (accepted in any case)"`
	Amount      json.Number `json:"amount" oas:"required" description:"a decimal string or a JSON number, at most 6 fraction digits"`
	Destination string      `json:"destination" oas:"required" description:"a 0x address on the wallet's chain"`
	Note        *string     `json:"note,omitempty" oas:"maxLength=500" description:"A note kept with the send (at most 500 characters), returned as note on the transaction."`
	// TwofaChallengeID redeems a satisfied two-factor challenge (a send answered 403
	// twofa_required names it in details.challengeId), as twofaChallengeId does on a propose.
	TwofaChallengeID *string `json:"twofa_challenge_id,omitempty"`
}

type secondarySendResponse struct {
	TransactionID         string     `json:"transaction_id" oas:"required" description:"the Safe payment's id (pay_…)"`
	Status                string     `json:"status" oas:"required,enum=awaiting_signature|signing|ready_to_execute|executing|completed|failed|cancelled"`
	TransactionHash       *string    `json:"transaction_hash" oas:"required" description:"null until the payment is executed on chain"`
	EstimatedConfirmation *time.Time `json:"estimated_confirmation" oas:"required" description:"null while owners' signatures are awaited"`
}

type secondaryTransaction struct {
	ID              string    `json:"id" oas:"required" description:"a Safe payment (pay_…), a ledger transfer of the on-chain mirror, a completed checkout (chk_…, a payment received) or a checkout refund (a refund)"`
	WalletID        *string   `json:"wallet_id" oas:"required" description:"The wallet moved; null for a checkout or a checkout refund, which move the merchant's service balance."`
	Type            string    `json:"type" oas:"required,enum=payment|withdrawal|refund"`
	Currency        string    `json:"currency" oas:"required,enum=USDC"`
	Amount          string    `json:"amount" oas:"required"`
	Status          string    `json:"status" oas:"required,enum=awaiting_signature|signing|ready_to_execute|executing|pending|completed|failed|cancelled" description:"A Safe payment's status in lower case; pending for a card authorization's hold on the wallet not yet captured or released; completed for a posted movement."`
	TransactionHash *string   `json:"transaction_hash" oas:"required"`
	Counterparty    *string   `json:"counterparty" oas:"required" description:"the sender of a payment received, the destination of a withdrawal"`
	Note            *string   `json:"note" oas:"required" description:"The note given with the send; card authorization <id> on a card spend's line; null otherwise."`
	CreatedAt       time.Time `json:"created_at" oas:"required"`
}

type secondaryTransactionListResponse struct {
	Data    []secondaryTransaction `json:"data" oas:"required"`
	Total   int                    `json:"total" oas:"required"`
	HasMore bool                   `json:"has_more" oas:"required"`
}
