package http

import (
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/policies"
)

func (h *policyHandlers) createPolicy(c *fiber.Ctx) error {
	var req policyCreateBody
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	p, err := h.svc.CreatePolicy(c.UserContext(), principal(c), policies.CreatePolicyInput{Name: req.Name, Document: req.Document})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toPolicy(p))
}

func (h *policyHandlers) listPolicies(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	policies, total, err := h.svc.ListPolicies(c.UserContext(), principal(c), page)
	if err != nil {
		return err
	}
	out := policyListResponse{Policies: make([]policyResponse, len(policies)), Total: total}
	for i, p := range policies {
		out.Policies[i] = toPolicy(p)
	}
	return c.JSON(out)
}

func (h *policyHandlers) getPolicy(c *fiber.Ctx) error {
	p, err := h.svc.GetPolicy(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toPolicy(p))
}

func (h *policyHandlers) archivePolicy(c *fiber.Ctx) error {
	p, err := h.svc.ArchivePolicy(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	return c.JSON(toPolicy(p))
}

func (h *policyHandlers) createPolicyVersion(c *fiber.Ctx) error {
	var req policyVersionBody
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	v, err := h.svc.CreatePolicyVersion(c.UserContext(), principal(c), c.Params("id"), req.Document)
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toPolicyVersion(v))
}

func (h *policyHandlers) listPolicyVersions(c *fiber.Ctx) error {
	page, err := pageOf(c)
	if err != nil {
		return err
	}
	versions, total, err := h.svc.ListPolicyVersions(c.UserContext(), principal(c), c.Params("id"), page)
	if err != nil {
		return err
	}
	out := policyVersionListResponse{Versions: make([]policyVersionResponse, len(versions)), Total: total}
	for i, v := range versions {
		out.Versions[i] = toPolicyVersion(v)
	}
	return c.JSON(out)
}

func (h *policyHandlers) attachPolicy(c *fiber.Ctx) error {
	var req policyAttachRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	a, err := h.svc.AttachPolicy(c.UserContext(), principal(c), c.Params("id"),
		policies.AttachInput{SubjectType: req.SubjectType, SubjectID: req.SubjectID})
	if err != nil {
		return err
	}
	return c.Status(fiber.StatusCreated).JSON(toPolicyAttachment(a))
}

func (h *policyHandlers) listPolicyAttachments(c *fiber.Ctx) error {
	atts, err := h.svc.ListPolicyAttachments(c.UserContext(), principal(c), c.Params("id"))
	if err != nil {
		return err
	}
	out := policyAttachmentListResponse{Attachments: make([]policyAttachmentResponse, len(atts)), Total: len(atts)}
	for i, a := range atts {
		out.Attachments[i] = toPolicyAttachment(a)
	}
	return c.JSON(out)
}

func (h *policyHandlers) detachPolicy(c *fiber.Ctx) error {
	a, err := h.svc.DetachPolicy(c.UserContext(), principal(c), strings.TrimSpace(c.Params("attachmentId")))
	if err != nil {
		return err
	}
	return c.JSON(toPolicyAttachment(a))
}

func (h *policyHandlers) evaluatePolicy(c *fiber.Ctx) error {
	var req policyEvaluateRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	d, err := h.svc.EvaluatePolicy(c.UserContext(), principal(c), policies.EvaluateInput{
		PolicyID: req.PolicyID, SubjectType: req.SubjectType, SubjectID: req.SubjectID,
		AmountUSD: req.AmountUSD, MCC: req.MCC, Counterparty: req.Counterparty,
	})
	if err != nil {
		return err
	}
	return c.JSON(toPolicyEvaluation(d))
}
