package http

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"log/slog"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/checkouts"
	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/ports"
	webcheckout "github.com/corridorhq/corridor/web/checkout"
)

// checkoutHandlers serve hosted checkouts and their payment page. pageBaseURL is the configured
// public base of the page (empty: the request's own origin).
type checkoutHandlers struct {
	svc         *checkouts.Service
	pageBaseURL string
	log         *slog.Logger
}

// checkoutEndpoints are hosted checkout's own routes (docs/decisions/checkout.md, docs/checkout.md). POST /v1/payments
// and GET /v1/payments/{id} are shared with Safe payments and stay in paymentEndpoints (the
// body's shape, the id's prefix select the surface).
func (h *checkoutHandlers) checkoutEndpoints() []Endpoint {
	chk := []Param{{Name: "id", In: "path", Description: "the checkout's id (chk_…)"}}
	list := []Param{{Name: "skip", In: "query", Integer: true, Description: "at most 10000"}, {Name: "take", In: "query", Integer: true, Description: "at most 100"},
		{Name: "status", In: "query", Description: "created, pending, completed or failed"},
		{Name: "from_date", In: "query", Description: "created at or after: RFC 3339 instant or YYYY-MM-DD"},
		{Name: "to_date", In: "query", Description: "created before: RFC 3339 instant (exclusive) or YYYY-MM-DD (inclusive)"}}
	return []Endpoint{
		{Method: "GET", Path: "/v1/checkouts", Summary: "The merchant's checkouts, newest first, by status and creation date: a list of the primary kind (skip/take, {checkouts, total}, the canonical error envelope)", Tag: "checkout",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsRead}, Params: list,
			Responses: map[int]any{200: checkoutListResponse{}, 400: Envelope{}}, Handler: h.listCheckouts},
		{Method: "POST", Path: "/v1/payments/{id}/refund", Summary: "Secondary: refund a checkout (chk_…) from the merchant's service balance, up to what it received; the USDC goes to the payer", Tag: "checkout",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsExecute}, Params: chk, Request: checkoutRefundRequest{}, SecondaryErrors: true,
			Responses: map[int]any{201: checkoutRefundResponse{}, 404: secondaryErrorResponse{}, 409: secondaryErrorResponse{}, 422: secondaryErrorResponse{}, 503: secondaryErrorResponse{}}, Handler: h.refundCheckout},
		{Method: "GET", Path: "/v1/payments/{id}/refunds", Summary: "Secondary: a checkout's refunds, oldest first", Tag: "checkout",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsRead}, Params: chk, SecondaryErrors: true,
			Responses: map[int]any{200: checkoutRefundListResponse{}, 404: secondaryErrorResponse{}}, Handler: h.listCheckoutRefunds},
		{Method: "POST", Path: "/v1/sandbox/payments/{id}/expire", Summary: "TEST only: a checkout's expires_at becomes now and the watcher reads it at once", Tag: "checkout",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsCreate}, Params: chk, SandboxOnly: true, SecondaryErrors: true,
			Responses: map[int]any{200: checkoutResponse{}, 403: secondaryErrorResponse{}, 404: secondaryErrorResponse{}}, Handler: h.expireCheckout},
		{Method: "POST", Path: "/v1/sandbox/payments/{id}/pay", Summary: "TEST only: pay a checkout as a payer's wallet would (the relayer sends the sandbox test USDC to its deposit address and is its payer; the watcher then sees it)", Tag: "checkout",
			Auth: authRequired, Scopes: []auth.Scope{auth.ScopePaymentsCreate}, Params: chk, Request: checkoutSandboxPayRequest{}, SandboxOnly: true, SecondaryErrors: true,
			Responses: map[int]any{201: checkoutSandboxPayResponse{}, 403: secondaryErrorResponse{}, 404: secondaryErrorResponse{}, 503: secondaryErrorResponse{}}, Prepare: outsideStep(h.sandboxPayCheckout)},
		{Method: "GET", Path: "/pay/{id}", Public: "the hosted payment page: the checkout id is its key", Summary: "The hosted payment page of a checkout (HTML; public: the id is its key); an unknown id or an unavailable chain answers an HTML page too", Tag: "checkout",
			Auth: authNone, Params: chk,
			Responses: map[int]any{200: Content{"text/html": ""}, 404: Content{"text/html": ""}, 503: Content{"text/html": ""}}, Handler: h.checkoutPage},
		{Method: "GET", Path: "/pay/{id}/status", Public: "the payment page's public status: the checkout id is its key", Summary: "The payment page's live status (public; nothing about the merchant or the customer)", Tag: "checkout",
			Auth: authNone, Params: chk,
			Responses: map[int]any{200: checkoutStatusResponse{}, 404: Envelope{}}, Handler: h.checkoutPageStatus},
		{Method: "GET", Path: "/pay/{id}/qr.png", Public: "the payment page's QR code: the checkout id is its key", Summary: "The payment page's QR code (PNG) of the EIP-681 USDC transfer URI for what is still due (the rest, once part has arrived)", Tag: "checkout",
			Auth: authNone, Params: append(slices.Clip(chk), Param{Name: "due", In: "query", Integer: true,
				Description: "the base units still due, as the payment page asks; the code always encodes what is due now, and is cached for an hour only when this matches it"}),
			Responses: map[int]any{200: Content{"image/png": ""}, 404: Envelope{}, 503: Envelope{}}, Handler: h.checkoutQR},
		{Method: "GET", Path: checkoutAssetsBase + "/checkout.js", Public: "static asset of the payment page", Summary: "The payment page's script", Tag: "checkout",
			Auth: authNone, Responses: map[int]any{200: Content{"text/javascript": ""}}, Handler: checkoutAsset("checkout.js", "text/javascript; charset=utf-8")},
		{Method: "GET", Path: checkoutAssetsBase + "/checkout.css", Public: "static asset of the payment page", Summary: "The payment page's stylesheet", Tag: "checkout",
			Auth: authNone, Responses: map[int]any{200: Content{"text/css": ""}}, Handler: checkoutAsset("checkout.css", "text/css; charset=utf-8")},
	}
}

// Hosted checkout (docs/decisions/checkout.md, docs/checkout.md): the secondary POST /v1/payments (selected by its
// body's shape) and the chk_ ids of GET /v1/payments/{id} (selected by their prefix).

// secondaryPayments are the checkout halves of POST /v1/payments and GET /v1/payments/{id},
// which Safe payments' endpoint list serves beside its own.
func (h *checkoutHandlers) secondaryPayments() secondaryPayments {
	return secondaryPayments{create: h.createCheckout, get: h.getCheckout}
}

func isCheckoutID(id string) bool {
	return strings.HasPrefix(strings.TrimSpace(id), checkout.PrefixCheckout+"_")
}

// checkoutPathID checks the caller's scope, then answers the chk_ id of the path; any other id
// is the payment not found, as for a Safe payment of another tenant.
// sandboxCheckoutID is checkoutPathID for the TEST helpers: a LIVE caller is refused as
// SANDBOX_ONLY before the id is looked at.
func sandboxCheckoutID(c *fiber.Ctx) (string, error) {
	if err := kernel.RequireTenantScope(principal(c), auth.ScopePaymentsCreate); err != nil {
		return "", err
	}
	if principal(c).Environment != core.EnvTest {
		return "", core.E(core.CodeSandboxOnly, "this helper is available in TEST only")
	}
	return checkoutPathID(c, auth.ScopePaymentsCreate)
}

func checkoutPathID(c *fiber.Ctx, scope auth.Scope) (string, error) {
	if err := kernel.RequireTenantScope(principal(c), scope); err != nil {
		return "", err
	}
	id := strings.TrimSpace(c.Params("id"))
	if !isCheckoutID(id) {
		return "", core.NotFound(safepay.CodePaymentNotFound, "payment")
	}
	return id, nil
}

// numberAmount reads an amount the checkout routes take as a JSON number, with core.ParseAmount
// on its text as written; an exponent (1e2), which ParseAmount's message calls a string, is named
// as a number's.
func numberAmount(field string, decimals int, n jsonDecimal) (int64, error) {
	if strings.ContainsAny(string(n), "eE") {
		return 0, core.Invalid(field, "must be a plain decimal number such as 12.50: digits with an optional point and fraction, no exponent")
	}
	return core.ParseAmount(field, decimals, string(n))
}

// createCheckout checks the body and reads the chain's head outside the runner's unit of work, then
// stores the checkout inside it.
func (h *checkoutHandlers) createCheckout(c *fiber.Ctx) (fiber.Handler, error) {
	var req checkoutCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	in := checkouts.CreateInput{Currency: req.Currency, Cryptocurrency: req.Cryptocurrency, Metadata: req.Metadata}
	cents, err := numberAmount("amount", 2, req.Amount)
	if err != nil {
		return nil, err
	}
	in.Amount = cents * 10_000 // USD cents to USDC base units (6 decimals)
	if req.Description != nil {
		in.Description = *req.Description
	}
	if req.Customer != nil {
		if req.Customer.Email != nil {
			in.CustomerEmail = *req.Customer.Email
		}
		if req.Customer.Name != nil {
			in.CustomerName = *req.Customer.Name
		}
	}
	prepared, err := h.svc.Prepare(c.UserContext(), principal(c), in)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		ch, err := h.svc.Create(c.UserContext(), principal(c), prepared)
		if err != nil {
			return err
		}
		base := h.pageBase(c)
		token, chainID, _ := h.svc.Token(ch.Environment)
		return c.Status(fiber.StatusCreated).JSON(checkoutCreateResponse{ID: ch.ID, Amount: jsonDecimal(usdAmount(ch.Amount)),
			Currency: ch.Currency, Cryptocurrency: ch.Cryptocurrency, CryptoAmount: usdcAmount(ch.Amount), Status: checkoutStatus(ch),
			PaymentURL: base + "/pay/" + ch.ID, QRCode: base + "/pay/" + ch.ID + "/qr.png",
			PaymentURI:     webcheckout.PaymentURI(token, chainID, ch.DepositAddress, ch.Amount),
			DepositAddress: ch.DepositAddress, ChainID: ch.ChainID, ExpiresAt: ch.ExpiresAt, CreatedAt: ch.CreatedAt})
	}, nil
}

// pageBase is the payment page's base URL: the configured one, else this request's origin.
func (h *checkoutHandlers) pageBase(c *fiber.Ctx) string {
	if h.pageBaseURL != "" {
		return h.pageBaseURL
	}
	return c.BaseURL()
}

func (h *checkoutHandlers) getCheckout(c *fiber.Ctx) error {
	id, err := checkoutPathID(c, auth.ScopePaymentsRead)
	if err != nil {
		return err
	}
	ch, err := h.svc.Get(c.UserContext(), principal(c), id)
	if err != nil {
		return err
	}
	return c.JSON(toCheckout(ch))
}

// refundCheckout serves POST /v1/payments/{chk_id}/refund.
func (h *checkoutHandlers) refundCheckout(c *fiber.Ctx) error {
	var req checkoutRefundRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	in := checkouts.RefundInput{}
	if req.Amount != nil {
		units, err := numberAmount("amount", 6, *req.Amount)
		if err != nil {
			return err
		}
		in.Amount = &units
	}
	if req.Address != nil {
		in.Address = strings.TrimSpace(*req.Address)
		if in.Address == "" {
			return core.Invalid("address", "must be a 0x address of 40 hex digits")
		}
	}
	id, err := checkoutPathID(c, auth.ScopePaymentsExecute)
	if err != nil {
		return err
	}
	r, err := h.svc.Refund(c.UserContext(), principal(c), id, in)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toCheckoutRefund(r))
}

// listCheckoutRefunds serves GET /v1/payments/{chk_id}/refunds.
func (h *checkoutHandlers) listCheckoutRefunds(c *fiber.Ctx) error {
	id, err := checkoutPathID(c, auth.ScopePaymentsRead)
	if err != nil {
		return err
	}
	all, err := h.svc.Refunds(c.UserContext(), principal(c), id)
	if err != nil {
		return err
	}
	out := checkoutRefundListResponse{Data: []checkoutRefundResponse{}, Total: len(all)}
	for _, r := range all {
		out.Data = append(out.Data, toCheckoutRefund(r))
	}
	return c.JSON(out)
}

// expireCheckout serves the TEST helper POST /v1/sandbox/payments/{chk_id}/expire.
func (h *checkoutHandlers) expireCheckout(c *fiber.Ctx) error {
	id, err := sandboxCheckoutID(c)
	if err != nil {
		return err
	}
	ch, err := h.svc.ExpireNow(c.UserContext(), principal(c), id)
	if err != nil {
		return err
	}
	return c.JSON(toCheckout(ch))
}

// sandboxPayCheckout serves the TEST helper POST /v1/sandbox/payments/{chk_id}/pay.
func (h *checkoutHandlers) sandboxPayCheckout(c *fiber.Ctx) error {
	id, err := sandboxCheckoutID(c)
	if err != nil {
		return err
	}
	var req checkoutSandboxPayRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	var amount int64
	if req.Amount != nil {
		units, err := numberAmount("amount", 6, *req.Amount)
		if err != nil {
			return err
		}
		if units <= 0 {
			return core.Invalid("amount", "must be more than 0")
		}
		amount = units
	}
	paid, err := h.svc.SandboxPay(c.UserContext(), principal(c), id, amount)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(checkoutSandboxPayResponse{
		PaymentID: paid.CheckoutID, Amount: usdcAmount(paid.Amount), TransactionHash: paid.TxHash})
}

// checkoutStatuses are the statuses GET /v1/checkouts filters on.
var checkoutStatuses = []string{"created", "pending", "completed", "failed"}

// listCheckouts serves GET /v1/checkouts: the merchant's checkouts, newest first.
func (h *checkoutHandlers) listCheckouts(c *fiber.Ctx) error {
	errs := core.FieldErrors{}
	page := pageInto(c, errs)
	status := strings.ToLower(strings.TrimSpace(c.Query("status")))
	if status != "" && !slices.Contains(checkoutStatuses, status) {
		errs.Add("status", "must be one of "+strings.Join(checkoutStatuses, ", "))
	}
	from, to := parseDateWindow(c, errs)
	if err := errs.Err(); err != nil {
		return err
	}
	q := ports.CheckoutQuery{Status: checkout.Status(strings.ToUpper(status)), From: from, To: to}
	all, total, err := h.svc.List(c.UserContext(), principal(c), q, page)
	if err != nil {
		return err
	}
	out := checkoutListResponse{Checkouts: make([]checkoutResponse, 0, len(all)), Total: total}
	for _, ch := range all {
		out.Checkouts = append(out.Checkouts, toCheckout(ch))
	}
	return c.JSON(out)
}

// The hosted payment page (GET /pay/{id}, docs/checkout.md): public, keyed by the checkout's
// id, served with a strict Content-Security-Policy; its script polls the public status route.

// checkoutAssetsBase is where the page's script and stylesheet are served.
const checkoutAssetsBase = "/checkout-assets"

// pageHeaders are the security headers of every page response.
func pageHeaders(c *fiber.Ctx) {
	c.Set("Content-Security-Policy", webcheckout.ContentSecurityPolicy)
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set("Referrer-Policy", "no-referrer")
	c.Set("X-Frame-Options", "DENY")
}

// publicCheckout is the checkout of the path, from any tenant (the id is the page's key).
func (h *checkoutHandlers) publicCheckout(c *fiber.Ctx) (checkout.Checkout, error) {
	return h.svc.Public(c.UserContext(), strings.TrimSpace(c.Params("id")))
}

// payable is the path's checkout with its chain id and EIP-681 transfer URI (the page and its
// QR code).
func (h *checkoutHandlers) payable(c *fiber.Ctx) (checkout.Checkout, int64, string, error) {
	ch, err := h.publicCheckout(c)
	if err != nil {
		return checkout.Checkout{}, 0, "", err
	}
	return h.payableURI(ch)
}

// payableURI is a checkout's chain id and EIP-681 transfer URI.
func (h *checkoutHandlers) payableURI(ch checkout.Checkout) (checkout.Checkout, int64, string, error) {
	token, chainID, ok := h.svc.Token(ch.Environment)
	if !ok {
		return checkout.Checkout{}, 0, "", core.E(core.CodeChainUnavailable, "hosted checkout is not available in %s: no chain is configured for it in this deployment", ch.Environment)
	}
	return ch, chainID, webcheckout.PaymentURI(token, chainID, ch.DepositAddress, ch.Due()), nil
}

// checkoutPage renders the payment page; an unknown id or a payment the service cannot show
// now answers an HTML page too (a payer's browser never sees the JSON envelope).
func (h *checkoutHandlers) checkoutPage(c *fiber.Ctx) error {
	found, merchant, err := h.svc.PublicPage(c.UserContext(), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return h.checkoutErrorPage(c, err)
	}
	ch, chainID, uri, err := h.payableURI(found)
	if err != nil {
		return h.checkoutErrorPage(c, err)
	}
	body, err := webcheckout.Render(webcheckout.Page{ID: ch.ID, Merchant: merchant, Seen: ch.Confirmations,
		Amount: usdAmount(ch.Amount), Currency: ch.Currency,
		CryptoAmount: usdcAmount(ch.Amount), CryptoDue: usdcAmount(ch.Due()), Cryptocurrency: ch.Cryptocurrency, Description: ch.Description,
		DepositAddress: ch.DepositAddress, ChainID: chainID, PaymentURI: uri,
		Status: checkoutStatus(ch), FailureReason: ch.FailureReason, Received: usdcAmount(ch.Received),
		ReceivedBaseUnits: ch.Received, AmountBaseUnits: ch.Amount, TransactionHash: ch.TransactionHash,
		ExpiresAt: ch.ExpiresAt, Confirmations: h.svc.Confirmations(),
		StatusURL: "/pay/" + ch.ID + "/status", QRURL: qrURL(ch.ID, ch.Due()), AssetsBase: checkoutAssetsBase})
	if err != nil {
		return h.checkoutErrorPage(c, err)
	}
	return sendPage(c, fiber.StatusOK, body)
}

// checkoutErrorPage answers err as an HTML page with the status the error table gives it: a
// payment that is not found, a chain that is not there, or (logged) anything else.
func (h *checkoutHandlers) checkoutErrorPage(c *fiber.Ctx, err error) error {
	de := toDomain(err)
	if de == nil || de.Code == core.CodeInternal {
		h.log.Error("checkout page failed", "requestId", requestID(c), "error", err.Error())
		de = core.E(core.CodeInternal, "internal error")
	}
	status := StatusFor(de.Code)
	e := webcheckout.ErrorPage{StatusCode: status, RequestID: requestID(c), AssetsBase: checkoutAssetsBase,
		Title: "This payment page is unavailable", Message: "Something went wrong on our side. Try again in a moment."}
	switch {
	case status == fiber.StatusNotFound:
		e.Title, e.Message = "Payment not found", "There is no payment request at this address. Check the link the merchant sent you."
	case status == fiber.StatusServiceUnavailable:
		e.Message = "The network this payment uses cannot be reached right now. Try again in a moment; nothing has been charged."
	}
	body, rerr := webcheckout.RenderError(e)
	if rerr != nil {
		return rerr
	}
	return sendPage(c, status, body)
}

// sendPage sends an HTML page with the page's security headers, never cached.
func sendPage(c *fiber.Ctx, status int, body []byte) error {
	pageHeaders(c)
	c.Set(fiber.HeaderCacheControl, "no-store")
	c.Set(fiber.HeaderContentType, "text/html; charset=utf-8")
	return c.Status(status).Send(body)
}

// checkoutPageStatus is the page's live status: nothing about the merchant or the customer.
func (h *checkoutHandlers) checkoutPageStatus(c *fiber.Ctx) error {
	ch, err := h.publicCheckout(c)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "no-store")
	return c.JSON(checkoutStatusResponse{ID: ch.ID, Status: checkoutStatus(ch), Amount: usdAmount(ch.Amount), Currency: ch.Currency,
		CryptoAmount: usdcAmount(ch.Amount), DepositAddress: ch.DepositAddress, Confirmations: ch.Confirmations,
		RequiredConfirmations: h.svc.Confirmations(), FailureReason: strPtr(ch.FailureReason), ExpiresAt: ch.ExpiresAt,
		AmountReceived: usdcAmount(ch.Received), TransactionHash: strPtr(ch.TransactionHash)})
}

// qrURL is the page's QR code for a checkout with due base units still to send: the amount is
// in the URL, so a cached code for the whole amount is never shown once part has arrived.
func qrURL(id string, due int64) string {
	return "/pay/" + id + "/qr.png?due=" + strconv.FormatInt(due, 10)
}

// checkoutQR is the PNG QR code of the checkout's EIP-681 transfer URI, for what is still due.
// It is cached for an hour only under the URL the page asks for (?due= what is due now); any
// other URL, such as the API's qr_code, follows the checkout and is not cached.
func (h *checkoutHandlers) checkoutQR(c *fiber.Ctx) error {
	ch, _, uri, err := h.payable(c)
	if err != nil {
		return err
	}
	png, err := webcheckout.QRPNG(uri, 320)
	if err != nil {
		return err
	}
	if c.Query("due") == strconv.FormatInt(ch.Due(), 10) {
		c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
	} else {
		c.Set(fiber.HeaderCacheControl, "no-cache")
	}
	c.Set("X-Content-Type-Options", "nosniff")
	c.Set(fiber.HeaderContentType, "image/png")
	return c.Send(png)
}

// checkoutAsset serves one of the page's static files.
func checkoutAsset(name, contentType string) fiber.Handler {
	body, err := fs.ReadFile(webcheckout.Assets(), name)
	if err != nil {
		panic("checkout page asset " + name + ": " + err.Error())
	}
	return func(c *fiber.Ctx) error {
		c.Set(fiber.HeaderCacheControl, "public, max-age=300")
		c.Set("X-Content-Type-Options", "nosniff")
		c.Set(fiber.HeaderContentType, contentType)
		return c.Send(body)
	}
}

// Hosted checkout's DTOs (docs/api.md "Secondary documented shapes", docs/decisions/checkout.md, docs/checkout.md).

// jsonDecimal is a decimal carried as a JSON number (never through a float): a request's text
// is kept as given and parsed with core.ParseAmount; a response writes its text as a number.
type jsonDecimal string

var jsonDecimalType = reflect.TypeOf(jsonDecimal(""))

// MarshalJSON writes the decimal as a JSON number.
func (d jsonDecimal) MarshalJSON() ([]byte, error) {
	if d == "" {
		return []byte("0"), nil
	}
	return []byte(d), nil
}

// UnmarshalJSON takes a JSON number only.
func (d *jsonDecimal) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || !(b[0] == '-' || (b[0] >= '0' && b[0] <= '9')) {
		return errors.New("amount must be a JSON number such as 12.5")
	}
	*d = jsonDecimal(b)
	return nil
}

type checkoutCustomer struct {
	Email *string `json:"email,omitempty" description:"the payer's email, kept for the merchant"`
	Name  *string `json:"name,omitempty" oas:"maxLength=200"`
}

// checkoutCreateRequest is POST /v1/payments in the secondary shape (a checkout).
type checkoutCreateRequest struct {
	Amount         jsonDecimal       `json:"amount" oas:"required" description:"the price in currency, a JSON number with at most 2 fraction digits, at most 1000000"`
	Currency       string            `json:"currency" oas:"required,enum=USD" description:"USD, the only currency hosted checkout prices in (accepted in any case)"`
	Cryptocurrency string            `json:"cryptocurrency" oas:"required,enum=USDC" description:"USDC, the only cryptocurrency accepted (1 USD = 1 USDC); accepted in any case"`
	Description    *string           `json:"description,omitempty" oas:"maxLength=500" description:"shown on the payment page"`
	Customer       *checkoutCustomer `json:"customer,omitempty"`
	Metadata       map[string]string `json:"metadata,omitempty" description:"up to 20 string keys (1 to 40 characters) and values (at most 500)"`
}

// isSecondaryPaymentBody reports whether a POST /v1/payments body is a checkout: a JSON
// object naming currency, cryptocurrency or customer, or whose amount is a number (a Safe
// payment's amount is an object {value, asset}). Any other amount (a string, null, an array)
// leaves the body a Safe payment, whose decoder names amount: a Safe payment sent with
// "amount": "1.5" is told its amount is an object, never to send a number (a checkout).
func isSecondaryPaymentBody(body []byte) bool {
	var fields map[string]json.RawMessage
	if err := json.NewDecoder(bytes.NewReader(body)).Decode(&fields); err != nil {
		return false
	}
	for _, k := range []string{"currency", "cryptocurrency", "customer"} {
		if _, ok := fields[k]; ok {
			return true
		}
	}
	if raw, ok := fields["amount"]; ok {
		raw = bytes.TrimSpace(raw)
		return len(raw) > 0 && (raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9'))
	}
	return false
}

type checkoutCreateResponse struct {
	ID             string      `json:"id" oas:"required" description:"the checkout's id (chk_…)"`
	Amount         jsonDecimal `json:"amount" oas:"required"`
	Currency       string      `json:"currency" oas:"required,enum=USD"`
	Cryptocurrency string      `json:"cryptocurrency" oas:"required,enum=USDC" description:"The asset the payer sends: USDC."`
	CryptoAmount   string      `json:"crypto_amount" oas:"required" description:"USDC to send, a decimal string with 6 fraction digits"`
	Status         string      `json:"status" oas:"required,enum=created|pending|completed|failed"`
	PaymentURL     string      `json:"payment_url" oas:"required" description:"the hosted payment page (GET /pay/{id})"`
	QRCode         string      `json:"qr_code" oas:"required" description:"URL of the page's QR code (PNG) of the EIP-681 transfer URI"`
	PaymentURI     string      `json:"payment_uri" oas:"required" description:"the EIP-681 URI the QR code encodes"`
	DepositAddress string      `json:"deposit_address" oas:"required" description:"this checkout's own CREATE2 deposit address"`
	ChainID        int64       `json:"chain_id" oas:"required"`
	ExpiresAt      time.Time   `json:"expires_at" oas:"required"`
	CreatedAt      time.Time   `json:"created_at" oas:"required"`
}

// checkoutResponse is GET /v1/payments/{chk_id}.
type checkoutResponse struct {
	ID              string            `json:"id" oas:"required"`
	Amount          jsonDecimal       `json:"amount" oas:"required"`
	Currency        string            `json:"currency" oas:"required,enum=USD"`
	Cryptocurrency  string            `json:"cryptocurrency" oas:"required,enum=USDC" description:"The asset the payer sends: USDC."`
	Status          string            `json:"status" oas:"required,enum=created|pending|completed|failed"`
	TransactionHash *string           `json:"transaction_hash" oas:"required" description:"the latest transfer to the deposit address; null before one is seen"`
	Confirmations   int64             `json:"confirmations" oas:"required" description:"depth of that transfer"`
	AmountReceived  string            `json:"amount_received" oas:"required" description:"USDC seen at the deposit address"`
	AmountRefunded  string            `json:"amount_refunded" oas:"required" description:"How much has been refunded to the payer so far, a decimal string with 6 fraction digits (0.000000 before any refund)."`
	Refundable      string            `json:"refundable" oas:"required" description:"credited to the merchant's balance and not refunded"`
	FailureReason   *string           `json:"failure_reason" oas:"required,enum=expired|underpaid" description:"why a failed payment failed"`
	DepositAddress  string            `json:"deposit_address" oas:"required"`
	PayerAddress    *string           `json:"payer_address" oas:"required" description:"the sender of the first transfer (refunds go there by default)"`
	Description     string            `json:"description" oas:"required"`
	Customer        *checkoutCustomer `json:"customer" oas:"required" description:"the customer given at creation, for the merchant (never shown on the payment page); null when none was"`
	Metadata        map[string]string `json:"metadata" oas:"required"`
	ExpiresAt       time.Time         `json:"expires_at" oas:"required"`
	CreatedAt       time.Time         `json:"created_at" oas:"required"`
	CompletedAt     *time.Time        `json:"completed_at" oas:"required"`
}

// checkoutListResponse is GET /v1/checkouts: a page of the merchant's checkouts, newest first.
type checkoutListResponse struct {
	Checkouts []checkoutResponse `json:"checkouts" oas:"required"`
	Total     int                `json:"total" oas:"required" description:"how many checkouts match the filters"`
}

// checkoutStatusResponse is the public status of the payment page: nothing about the
// merchant or the customer.
type checkoutStatusResponse struct {
	ID                    string    `json:"id" oas:"required"`
	Status                string    `json:"status" oas:"required,enum=created|pending|completed|failed"`
	Amount                string    `json:"amount" oas:"required"`
	Currency              string    `json:"currency" oas:"required,enum=USD"`
	CryptoAmount          string    `json:"crypto_amount" oas:"required" description:"The USDC the payer sends, a decimal string with 6 fraction digits (12.500000)."`
	DepositAddress        string    `json:"deposit_address" oas:"required"`
	Confirmations         int64     `json:"confirmations" oas:"required" description:"How many blocks deep the paying transfer is; 0 before one is seen."`
	RequiredConfirmations uint64    `json:"required_confirmations" oas:"required"`
	FailureReason         *string   `json:"failure_reason" oas:"required,enum=expired|underpaid" description:"Why the checkout failed: expired (nothing arrived in time) or underpaid (less than the amount arrived); null unless it failed."`
	ExpiresAt             time.Time `json:"expires_at" oas:"required"`
	AmountReceived        string    `json:"amount_received" oas:"required" description:"USDC seen at the deposit address (the page says when it is short of the amount)"`
	TransactionHash       *string   `json:"transaction_hash" oas:"required" description:"the latest transfer to the deposit address (public chain data); null before one is seen"`
}

// checkoutRefundRequest is POST /v1/payments/{chk_id}/refund.
type checkoutRefundRequest struct {
	Amount  *jsonDecimal `json:"amount,omitempty" description:"USD (= USDC) to refund, at most 6 fraction digits; omitted: everything still refundable"`
	Address *string      `json:"address,omitempty" description:"where the USDC goes; omitted: the payer (the sender of the first transfer)"`
}

type checkoutRefundResponse struct {
	ID              string    `json:"id" oas:"required" description:"the refund's id (crf_…)"`
	PaymentID       string    `json:"payment_id" oas:"required"`
	Amount          string    `json:"amount" oas:"required"`
	Currency        string    `json:"currency" oas:"required,enum=USDC"`
	Destination     string    `json:"destination" oas:"required" description:"The address the refund is sent to: the one asked for, else the payer (the sender of the first transfer)."`
	Status          string    `json:"status" oas:"required,enum=pending|processed"`
	TransactionHash *string   `json:"transaction_hash" oas:"required"`
	CreatedAt       time.Time `json:"created_at" oas:"required"`
}

type checkoutRefundListResponse struct {
	Data    []checkoutRefundResponse `json:"data" oas:"required"`
	Total   int                      `json:"total" oas:"required" description:"how many refunds the checkout has"`
	HasMore bool                     `json:"has_more" oas:"required" description:"always false: a checkout's refunds come in one page (they are bounded by what it received)"`
}

// usdAmount is a USDC base-unit amount as a USD decimal with 2 to 6 fraction digits.
func usdAmount(units int64) string {
	s := core.FormatUSD(units)
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) < 2 {
		frac += "0"
	}
	return whole + "." + frac
}

// usdcAmount is a USDC base-unit amount with its 6 fraction digits.
func usdcAmount(units int64) string {
	s := core.FormatUSD(units)
	whole, frac, _ := strings.Cut(s, ".")
	for len(frac) < 6 {
		frac += "0"
	}
	return whole + "." + frac
}

func checkoutStatus(c checkout.Checkout) string { return strings.ToLower(string(c.Status)) }

func toCheckout(c checkout.Checkout) checkoutResponse {
	meta := c.Metadata
	if meta == nil {
		meta = map[string]string{}
	}
	return checkoutResponse{ID: c.ID, Amount: jsonDecimal(usdAmount(c.Amount)), Currency: c.Currency, Cryptocurrency: c.Cryptocurrency,
		Status: checkoutStatus(c), TransactionHash: strPtr(c.TransactionHash), Confirmations: c.Confirmations,
		AmountReceived: usdcAmount(c.Received), AmountRefunded: usdcAmount(c.Refunded), Refundable: usdcAmount(c.Refundable()),
		FailureReason: strPtr(c.FailureReason), DepositAddress: c.DepositAddress, PayerAddress: strPtr(c.PayerAddress),
		Description: c.Description, Customer: toCheckoutCustomer(c), Metadata: meta, ExpiresAt: c.ExpiresAt, CreatedAt: c.CreatedAt,
		CompletedAt: c.CompletedAt}
}

// toCheckoutCustomer is the customer a checkout was created with, nil when none was.
func toCheckoutCustomer(c checkout.Checkout) *checkoutCustomer {
	if c.CustomerEmail == "" && c.CustomerName == "" {
		return nil
	}
	return &checkoutCustomer{Email: strPtr(c.CustomerEmail), Name: strPtr(c.CustomerName)}
}

func toCheckoutRefund(r checkout.Refund) checkoutRefundResponse {
	return checkoutRefundResponse{ID: r.ID, PaymentID: r.CheckoutID, Amount: usdcAmount(r.Amount), Currency: "USDC",
		Destination: r.Destination, Status: strings.ToLower(string(r.Status)), TransactionHash: strPtr(r.TxHash), CreatedAt: r.CreatedAt}
}

type checkoutSandboxPayRequest struct {
	Amount *jsonDecimal `json:"amount,omitempty" description:"USDC to send, at most 6 fraction digits and at most 1000000; omitted: what is still due"`
}

type checkoutSandboxPayResponse struct {
	PaymentID       string `json:"payment_id" oas:"required" description:"the checkout (chk_…)"`
	Amount          string `json:"amount" oas:"required" description:"USDC sent"`
	TransactionHash string `json:"transaction_hash" oas:"required" description:"the sandbox chain's transaction"`
}
