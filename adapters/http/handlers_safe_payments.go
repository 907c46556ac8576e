package http

import (
	"context"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/safepayments"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/safepay"
)

// createSafePayment reads the chain first (the Safe's nonce and threshold), outside the
// runner's unit of work, then records the payment inside it.
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

// signSafePayment verifies the signature outside the runner's unit of work.
func (h *safePaymentsHandlers) signSafePayment(c *fiber.Ctx) (fiber.Handler, error) {
	return preparedPaymentAction(c, func(ctx context.Context, p auth.Principal, id string, req safePaymentSignRequest) (safepayments.SignatureRead, error) {
		return h.svc.ReadSignature(ctx, p, id, req.Signature)
	}, h.svc.Sign)
}

// executeSafePayment checks the owner and the Safe's nonce outside the runner's unit of work.
func (h *safePaymentsHandlers) executeSafePayment(c *fiber.Ctx) (fiber.Handler, error) {
	return preparedPaymentAction(c, func(ctx context.Context, p auth.Principal, id string, req safePaymentOwnerRequest) (safepayments.ExecutionRead, error) {
		return h.svc.ReadExecution(ctx, p, id, req.OwnerAddress)
	}, h.svc.Execute)
}

// cancelSafePayment checks the optional owner outside the runner's unit of work.
func (h *safePaymentsHandlers) cancelSafePayment(c *fiber.Ctx) (fiber.Handler, error) {
	return preparedPaymentAction(c, func(ctx context.Context, p auth.Principal, id string, req safePaymentOwnerRequest) (safepayments.CancelRead, error) {
		return h.svc.ReadCancel(ctx, p, id, req.OwnerAddress)
	}, h.svc.Cancel)
}

// preparedPaymentAction is the shape of a payment's sign, execute and cancel: decode the body,
// read (and check) outside the runner's unit of work, then apply the read inside it and answer the
// payment.
func preparedPaymentAction[B any, R any](c *fiber.Ctx, read func(context.Context, auth.Principal, string, B) (R, error),
	apply func(context.Context, auth.Principal, R) (safepay.Payment, error)) (fiber.Handler, error) {
	var req B
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	r, err := read(c.UserContext(), principal(c), strings.TrimSpace(c.Params("id")), req)
	if err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		return answerSafePayment(c)(apply(c.UserContext(), principal(c), r))
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
