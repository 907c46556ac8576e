package http

import (
	"io/fs"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/checkout"
	webcheckout "github.com/corridorhq/corridor/web/checkout"
)

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
	return ch, chainID, webcheckout.PaymentURI(token, chainID, ch.DepositAddress, ch.Amount), nil
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
		CryptoAmount: usdcAmount(ch.Amount), Cryptocurrency: ch.Cryptocurrency, Description: ch.Description,
		DepositAddress: ch.DepositAddress, ChainID: chainID, PaymentURI: uri,
		Status: checkoutStatus(ch), FailureReason: ch.FailureReason, Received: usdcAmount(ch.Received),
		ReceivedBaseUnits: ch.Received, AmountBaseUnits: ch.Amount, TransactionHash: ch.TransactionHash,
		ExpiresAt: ch.ExpiresAt, Confirmations: h.svc.Confirmations(),
		StatusURL: "/pay/" + ch.ID + "/status", QRURL: "/pay/" + ch.ID + "/qr.png", AssetsBase: checkoutAssetsBase})
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

// checkoutQR is the PNG QR code of the checkout's EIP-681 transfer URI.
func (h *checkoutHandlers) checkoutQR(c *fiber.Ctx) error {
	_, _, uri, err := h.payable(c)
	if err != nil {
		return err
	}
	png, err := webcheckout.QRPNG(uri, 320)
	if err != nil {
		return err
	}
	c.Set(fiber.HeaderCacheControl, "public, max-age=3600")
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
