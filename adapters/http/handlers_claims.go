package http

import (
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/app/claims"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
)

// publicClaimHeaders keep the link token out of referrers and caches.
func publicClaimHeaders(c *fiber.Ctx) {
	c.Set("Referrer-Policy", "no-referrer")
	c.Set(fiber.HeaderCacheControl, "no-store")
}

// throttleClaimIP charges the client IP's claim-link bucket (docs/api.md: inspect is throttled).
func (h *claimsHandlers) throttleClaimIP(c *fiber.Ctx) error {
	ok, wait := h.limiter.allow("claim-ip:"+c.IP(), time.Now())
	if ok {
		return nil
	}
	c.Set(fiber.HeaderRetryAfter, retryAfter(wait))
	return (&core.Error{Code: core.CodeRateLimited, Message: "too many claim link requests from this address; retry after the Retry-After seconds"}).
		WithDetails(map[string]any{"retryAfterSeconds": retryAfter(wait)})
}

func claimToken(c *fiber.Ctx) string { return strings.TrimSpace(c.Params("claimToken")) }

func (h *claimsHandlers) inspectClaim(c *fiber.Ctx) error {
	publicClaimHeaders(c)
	if err := h.throttleClaimIP(c); err != nil {
		return err
	}
	v, err := h.svc.InspectClaim(c.UserContext(), claimToken(c))
	if err != nil {
		return err
	}
	return c.JSON(toClaimPublic(v))
}

func (h *claimsHandlers) sendClaimPhoneCode(c *fiber.Ctx) error {
	publicClaimHeaders(c)
	if err := h.throttleClaimIP(c); err != nil {
		return err
	}
	ch, err := h.svc.SendClaimPhoneCode(c.UserContext(), claimToken(c), c.IP())
	if err != nil {
		return withRetryAfter(c, err)
	}
	return c.Status(fiber.StatusCreated).JSON(claimChallengeResponse{ChallengeID: ch.ChallengeID, ExpiresAt: ch.ExpiresAt})
}

func (h *claimsHandlers) verifyClaimPhoneCode(c *fiber.Ctx) error {
	publicClaimHeaders(c)
	if err := h.throttleClaimIP(c); err != nil {
		return err
	}
	var req claimCodeVerifyRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	ch, err := h.svc.VerifyClaimPhoneCode(c.UserContext(), claimToken(c), req.ChallengeID, req.Code)
	if err != nil {
		return err
	}
	return c.JSON(claimChallengeVerifyResponse{ChallengeID: ch.ChallengeID, Verified: ch.Verified})
}

// redeemClaim screens the claim's payment while preparing, outside any transaction; the
// redeem (and the policy check it runs) applies in the runner's unit of work.
func (h *claimsHandlers) redeemClaim(c *fiber.Ctx) (fiber.Handler, error) {
	publicClaimHeaders(c)
	var req claimRedeemRequest
	if err := decodeBody(c, &req); err != nil {
		return nil, err
	}
	if err := h.svc.PrepareRedeem(c.UserContext(), principal(c), claimToken(c)); err != nil {
		return nil, err
	}
	return func(c *fiber.Ctx) error {
		v, err := h.svc.RedeemClaim(c.UserContext(), principal(c), claimToken(c),
			claims.RedeemClaimInput{ChallengeID: req.ChallengeID, DestinationID: req.DestinationID})
		if err != nil {
			return err
		}
		return c.JSON(toClaimRedeem(v))
	}, nil
}

func (h *claimsHandlers) getClaim(c *fiber.Ctx) error {
	v, err := h.svc.GetClaim(c.UserContext(), principal(c), strings.TrimSpace(c.Params("claimId")))
	if err != nil {
		return err
	}
	return c.JSON(toClaim(v))
}

func (h *claimsHandlers) resendClaim(c *fiber.Ctx) error {
	cl, err := h.svc.ResendClaimLink(c.UserContext(), principal(c), strings.TrimSpace(c.Params("claimId")))
	if err != nil {
		return err
	}
	return c.JSON(claimResendResponse{ExpiresAt: cl.ExpiresAt})
}

func (h *claimsHandlers) requestClaimRefund(c *fiber.Ctx) error {
	v, err := h.svc.RequestClaimRefund(c.UserContext(), principal(c), strings.TrimSpace(c.Params("claimId")))
	if err != nil {
		return err
	}
	return c.JSON(toClaimRefund(v))
}

func (h *claimsHandlers) expireClaim(c *fiber.Ctx) error {
	v, err := h.svc.ExpireClaimNow(c.UserContext(), principal(c), strings.TrimSpace(c.Params("claimId")))
	if err != nil {
		return err
	}
	return c.JSON(toClaimRefund(v))
}

// claimLimit is the claim-link throttle per client IP.
var claimLimit = RateLimit{PerSecond: float64(claim.PublicViewPerIPLimit) / 60, Burst: claim.PublicViewPerIPLimit}
