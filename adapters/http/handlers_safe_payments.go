package http

import (
	"strings"

	"corridor/core/safepay"

	"github.com/gofiber/fiber/v2"
)

// createSafePayment reads the chain first (the Safe's nonce and threshold), outside the
// idempotent unit, then records the payment inside it.
func (h *safePaymentsHandlers) createSafePayment(c *fiber.Ctx) (fiber.Handler, error) {
	var req safePaymentCreateRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadProposal(c.UserContext(), principal(c), req.request())
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		pay, err := h.svc.Propose(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toSafePayment(pay))
	}, nil
}

// createSafeTransaction proposes an arbitrary Safe transaction: read first, then the same
// idempotent propose as a payment.
func (h *safePaymentsHandlers) createSafeTransaction(c *fiber.Ctx) (fiber.Handler, error) {
	var req safeTransactionRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadTransaction(c.UserContext(), principal(c), req.request(strings.TrimSpace(c.Params("id"))))
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		pay, err := h.svc.Propose(c.UserContext(), principal(c), read)
		if err != nil {
			return err
		}
		return c.Status(fiber.StatusCreated).JSON(toSafePayment(pay))
	}, nil
}

func (h *safePaymentsHandlers) listSafePayments(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	payments, total, err := h.svc.List(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := safePaymentListResponse{Payments: make([]safePaymentResponse, len(payments)), Total: total}
	for i, p := range payments {
		out.Payments[i] = toSafePayment(p)
	}
	return c.JSON(out)
}

func (h *safePaymentsHandlers) getSafePayment(c *fiber.Ctx) error {
	pay, err := h.svc.Get(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")))
	if err != nil {
		return err
	}
	return c.JSON(toSafePayment(pay))
}

// signSafePayment verifies the signature against the Safe's on-chain owners outside the
// idempotent unit, then applies it inside.
func (h *safePaymentsHandlers) signSafePayment(c *fiber.Ctx) (fiber.Handler, error) {
	var req safePaymentSignRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadSignature(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.Signature)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		return answerSafePayment(c)(h.svc.Sign(c.UserContext(), principal(c), read))
	}, nil
}

// executeSafePayment checks the owner and the Safe's nonce outside the idempotent unit.
func (h *safePaymentsHandlers) executeSafePayment(c *fiber.Ctx) (fiber.Handler, error) {
	var req safePaymentOwnerRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadExecution(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.OwnerAddress)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		return answerSafePayment(c)(h.svc.Execute(c.UserContext(), principal(c), read))
	}, nil
}

// cancelSafePayment checks the optional owner outside the idempotent unit.
func (h *safePaymentsHandlers) cancelSafePayment(c *fiber.Ctx) (fiber.Handler, error) {
	var req safePaymentOwnerRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	read, err := h.svc.ReadCancel(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req.OwnerAddress)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		return answerSafePayment(c)(h.svc.Cancel(c.UserContext(), principal(c), read))
	}, nil
}

// answerSafePayment answers the payment, or the error.
func answerSafePayment(c *fiber.Ctx) func(safepay.Payment, error) error {
	return func(pay safepay.Payment, err error) error {
		if err != nil {
			return err
		}
		return c.JSON(toSafePayment(pay))
	}
}
