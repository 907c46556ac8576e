package http

import (
	"slices"
	"strings"

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

// createCheckout checks the body and reads the chain's head outside the runner's unit of work, then
// stores the checkout inside it.
func (h *checkoutHandlers) createCheckout(c *fiber.Ctx) (fiber.Handler, error) {
	var req checkoutCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	in := checkouts.CreateInput{Currency: req.Currency, Cryptocurrency: req.Cryptocurrency, Metadata: req.Metadata}
	cents, err := core.ParseAmount("amount", 2, string(req.Amount))
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
		units, err := core.ParseAmount("amount", 6, string(*req.Amount))
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
		units, err := core.ParseAmount("amount", 6, string(*req.Amount))
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
