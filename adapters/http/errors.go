package http

import (
	"context"
	"errors"
	"github.com/corridorhq/corridor/core/requestlog"
	"log/slog"
	"strconv"
	"strings"

	"github.com/gofiber/fiber/v2"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/agent"
	"github.com/corridorhq/corridor/core/card"
	"github.com/corridorhq/corridor/core/checkout"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/event"
	"github.com/corridorhq/corridor/core/invoice"
	"github.com/corridorhq/corridor/core/offramp"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/core/ramp"
	"github.com/corridorhq/corridor/core/recipient"
	"github.com/corridorhq/corridor/core/safepay"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/core/treasury"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/core/webhook"
)

// statusByCode is the one table mapping domain codes to HTTP statuses (docs/architecture.md, Errors).
// Business-rule refusals are 422 and conflicts with in-flight work 409 (docs/decisions/api.md).
var statusByCode = map[core.Code]int{
	core.CodeValidationFailed:             400,
	core.CodeUnauthenticated:              401,
	core.CodeInsufficientScope:            403,
	core.CodeTenantRequired:               403,
	core.CodeSandboxOnly:                  403,
	core.CodeInvalidState:                 409,
	core.CodeIdempotencyKeyReused:         422,
	core.CodeIdempotencyRequestInProgress: 409,
	core.CodeRateLimited:                  429,
	core.CodeRouteNotFound:                404,
	core.CodeRequestTimeout:               408,
	core.CodeMethodNotAllowed:             405,
	core.CodePayloadTooLarge:              413,
	core.CodeHeadersTooLarge:              431,
	core.CodeUnsupportedMediaType:         415,
	core.CodeInternal:                     500,
	core.CodeFeatureNotAvailable:          501,
	core.CodeServiceUnavailable:           503,
	core.CodeChainUnavailable:             503,
	core.CodeProviderUnavailable:          503,
	wallet.CodeCustodyUnavailable:         503,
	core.CodeTenantNotFound:               404,
	core.CodeMemberNotFound:               404,
	core.CodeAPIKeyNotFound:               404,
	core.CodeInviteNotFound:               404,
	core.CodeWalletNotFound:               404,
	core.CodeHandleNotFound:               404,
	core.CodeHandleTaken:                  409,
	core.CodeDripNotFound:                 404,
	core.CodeJobNotFound:                  404,
	requestlog.CodeNotFound:               404,
	wallet.CodeWalletQuotaExceeded:        422,
	safepay.CodePaymentNotFound:           404,
	safepay.CodeSignatureDuplicate:        409,
	safepay.CodeSignerNotOwner:            422,
	safepay.CodeDestinationNotResolved:    422,
	safepay.CodeQueueFull:                 409,
	safepay.CodeCustodyCallRefused:        422,
	card.CodeCardNotFound:                 404,
	card.CodeCardholderNotFound:           404,
	card.CodeAuthorizationNotFound:        404,
	card.CodeWalletNotDeployed:            409,
	card.CodeModuleNotEnabled:             409,
	card.CodeEphemeralKeysUnsupported:     400,
	policy.CodePolicyNotFound:             404,
	treasury.CodeAccountNotFound:          404,
	ramp.CodeRampNotFound:                 404,
	// Ramp refusals are business rules (docs/decisions/api.md): 422.
	ramp.CodeRampProviderNotAvailable: 422,
	ramp.CodeRampAmountTooLarge:       422,
	ramp.CodeRampDailyCap:             422,
	treasury.CodeRuleNotFound:         404,
	policy.CodeAttachmentNotFound:     404,
	policy.CodeSubjectAttached:        409,
	policy.CodeDenied:                 403,
	policy.CodeUnavailable:            503,
	core.CodeAccountNotFound:          404,
	core.CodeTransferNotFound:         404,
	core.CodeInsufficientFunds:        422,
	core.CodeLedgerReferenceConflict:  409,
	core.CodeAmountOverflow:           422,
	invoice.CodeInvoiceNotFound:       404,
	event.CodeEventNotFound:           404,
	checkout.CodeNothingToRefund:      409,
	webhook.CodeEndpointNotFound:      404,
	webhook.CodeDeliveryNotFound:      404,
	invoice.CodeBillNotFound:          404,
	invoice.CodeNothingToRefund:       409,
	invoice.CodeSettlementInFlight:    409,

	// Agents. AGENT_SUSPENDED is 409 on provisioning routes (see writeError);
	// AGENT_LIMIT_UNAVAILABLE fails closed and is retryable, like POLICY_UNAVAILABLE.
	agent.CodeNotFound:         404,
	agent.CodeSuspended:        403,
	agent.CodeLimit:            403,
	agent.CodeLimitUnavailable: 503,
	agent.CodeWalletExists:     409,
	agent.CodeCardExists:       409,
	agent.CodeWalletRequired:   409,

	// Off-ramp recipients (aliases, credentials, payout destinations) and off-ramp payments.
	recipient.CodePhoneAliasNotFound:          404,
	recipient.CodePhoneAliasTaken:             409,
	recipient.CodePhoneCodeInvalid:            400,
	recipient.CodePhoneCodeExpired:            403,
	recipient.CodePhoneCodeTooManyTries:       403,
	recipient.CodePhoneAliasNotVerifying:      409,
	recipient.CodeDestinationNotFound:         404,
	recipient.CodeCredentialRequired:          403,
	offramp.CodePaymentNotFound:               404,
	offramp.CodeFundingModeNotAvailable:       400,
	offramp.CodeDestinationNotEligible:        403,
	offramp.CodeRecipientConsentRequired:      403,
	offramp.CodeSenderOnly:                    403,
	offramp.CodeClaimFunded:                   409,
	offramp.CodeProviderNotFound:              404,
	safepay.CodeScreeningRejected:             403,
	offramp.CodeQuoteExpired:                  409,
	offramp.CodeQuoteNotFound:                 404,
	offramp.CodeRouteNotSelected:              409,
	offramp.CodeRecipientUnknown:              422,
	offramp.CodeSelfPayment:                   422,
	recipient.CodeDestinationRailConstraint:   422,
	recipient.CodeDestinationRailNotAvailable: 422,

	// Pending claims of off-ramp payments to unverified phones.
	claim.CodeClaimNotFound:      404,
	claim.CodeLinkUsed:           409,
	claim.CodeLinkExpired:        409,
	claim.CodeNotExpired:         409,
	claim.CodeNotRedeemable:      409,
	claim.CodeNotFunded:          409,
	claim.CodeChallengeNotFound:  404,
	claim.CodeResendBudget:       429,
	claim.CodeInvalidCode:        400,
	claim.CodeTooManyAttempts:    403,
	claim.CodeChallengeExpired:   403,
	claim.CodeChallengeNotUsable: 403,

	twofactor.CodeRequired:          403,
	twofactor.CodeBindingMismatch:   403,
	twofactor.CodeNotEnrolled:       403,
	twofactor.CodeAgentNotPermitted: 403,
	tenant.CodeInviteEmailMismatch:  403,
	twofactor.CodeNewPayeeNotSaved:  403,
	twofactor.CodePayeeCoolingOff:   403,
	twofactor.CodeContactNotFound:   404,
	twofactor.CodeContactExists:     409,
	twofactor.CodeFactorNotFound:    404,
	twofactor.CodeChallengeNotFound: 404,
}

// retryableCodes are the refusals that tell the client to send the same request again later:
// the state they refuse on changes by itself (a claim's escrow lock gets indexed, a wallet's
// payment queue drains, a request holding the Idempotency-Key finishes, a budget refills, a
// dependency comes back). An idempotent POST never stores them, so a retry with the same
// Idempotency-Key runs again instead of replaying the refusal. Besides these codes, every 408,
// 429 and 5xx is retryable whatever its code (RetryableRefusal).
var retryableCodes = map[core.Code]bool{
	claim.CodeNotFunded:                   true, // 409 until the escrow lock is indexed
	safepay.CodeQueueFull:                 true, // 409 until a queued payment executes or is cancelled
	card.CodeWalletNotDeployed:            true, // 409 until the wallet's Safe is deployed
	core.CodeIdempotencyRequestInProgress: true, // 409 until the first request finishes
	core.CodeRateLimited:                  true,
	claim.CodeResendBudget:                true,
	core.CodeRequestTimeout:               true,
	core.CodeInternal:                     true,
	core.CodeServiceUnavailable:           true,
	core.CodeChainUnavailable:             true,
	core.CodeProviderUnavailable:          true,
	wallet.CodeCustodyUnavailable:         true,
	policy.CodeUnavailable:                true,
	agent.CodeLimitUnavailable:            true,
}

// RetryableRefusal reports whether an answer tells the client to retry the same request
// later: a code of retryableCodes, or a 408, 429 or 5xx status.
func RetryableRefusal(code core.Code, status int) bool {
	return retryableCodes[code] || status == 408 || status == 429 || status >= 500
}

// StatusFor returns the HTTP status of a code. Every code declared in core has an entry (a test
// walks core's declarations); a code missing from the table is a programming error answered as
// 500, never a guessed business status.
func StatusFor(code core.Code) int {
	if s, ok := statusByCode[code]; ok {
		return s
	}
	return 500
}

// Envelope is docs/api.md's error body.
type Envelope struct {
	StatusCode int            `json:"statusCode" oas:"required"`
	Message    string         `json:"message" oas:"required"`
	Code       string         `json:"code" oas:"required"`
	RequestID  string         `json:"requestId" oas:"required"`
	Details    map[string]any `json:"details,omitempty"`
}

// toDomain converts any error into a domain error, keeping internal details out of responses.
func toDomain(err error) *core.Error {
	var de *core.Error
	if errors.As(err, &de) {
		return de
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return core.E(core.CodeServiceUnavailable, "the request did not complete in time; retry shortly").Transient(core.RetryDatabase)
	}
	var fe *fiber.Error
	if errors.As(err, &fe) {
		switch fe.Code {
		case fiber.StatusNotFound:
			return core.E(core.CodeRouteNotFound, "no route matches this path")
		case fiber.StatusMethodNotAllowed:
			return core.E(core.CodeMethodNotAllowed, "this path does not accept this method")
		case fiber.StatusRequestEntityTooLarge:
			return core.E(core.CodePayloadTooLarge, "request body is too large")
		case fiber.StatusRequestHeaderFieldsTooLarge:
			return core.E(core.CodeHeadersTooLarge, "the request line and headers are over %d KiB", MaxHeaderBytes>>10)
		case fiber.StatusRequestTimeout:
			return core.E(core.CodeRequestTimeout, "the request was not received in time")
		}
		if fe.Code < 500 {
			return core.E(core.CodeValidationFailed, "%s", fe.Message)
		}
	}
	return nil
}

// renderError is writeError plus one refinement: an unmatched path under a capability this
// build does not serve answers FEATURE_NOT_AVAILABLE (501) instead of ROUTE_NOT_FOUND.
func (s *Server) renderError(c *fiber.Ctx, err error) error {
	var fe *fiber.Error
	if errors.As(err, &fe) && fe.Code == fiber.StatusNotFound {
		path := c.Path()
		for prefix, feature := range s.cfg.Capabilities.UnbuiltPrefixes {
			if underPrefix(path, prefix) {
				err = (&core.Error{Code: core.CodeFeatureNotAvailable,
					Message: "the " + feature + " capability is not available in this build; GET /v1/capabilities lists what is"}).
					WithDetails(map[string]any{"feature": feature})
				break
			}
		}
	}
	return writeError(c, s.log, err)
}

// underPrefix reports whether path is prefix or below it; a "*" segment of prefix matches any
// one segment ("/v1/agents/*/cards" covers one sub-resource of every agent).
func underPrefix(path, prefix string) bool {
	want := strings.Split(prefix, "/")
	got := strings.Split(path, "/")
	if len(got) < len(want) {
		return false
	}
	for i, seg := range want {
		if seg != "*" && seg != got[i] {
			return false
		}
	}
	return true
}

// writeError renders the envelope. Unknown errors become a generic 500, logged with the
// request id; nothing internal leaks.
func writeError(c *fiber.Ctx, log *slog.Logger, err error) error {
	de := toDomain(err)
	if de != nil && de.Code == core.CodeInternal {
		de = nil // an internal domain error is still internal: logged below, answered generically
	}
	if de == nil {
		log.Error("unhandled error", "requestId", requestID(c), "route", endpointOf(c), "error", err.Error())
		de = core.E(core.CodeInternal, "internal error; quote the requestId when contacting support")
	}
	status := StatusFor(de.Code)
	// AGENT_SUSPENDED is 403 on payments and card authorizations and 409 on the provisioning
	// routes that declare it (Endpoint.AgentSuspendedConflict).
	if de.Code == agent.CodeSuspended {
		if conflict, _ := c.Locals(localAgentConflict).(bool); conflict {
			status = fiber.StatusConflict
		}
	}
	if status == fiber.StatusTooManyRequests && c.GetRespHeader(fiber.HeaderRetryAfter) == "" {
		if secs, ok := de.Details["retryAfterSeconds"].(int); ok && secs > 0 {
			c.Set(fiber.HeaderRetryAfter, strconv.Itoa(secs))
		}
	}
	// A transient refusal (a dependency that did not answer in time, a saturated pool) says
	// when to retry; a 503 that a retry cannot cure soon (a feature this deployment does not
	// configure) carries none (docs/decisions/api.md).
	if de.RetryAfter > 0 && (status == fiber.StatusServiceUnavailable || status == fiber.StatusTooManyRequests) &&
		c.GetRespHeader(fiber.HeaderRetryAfter) == "" {
		c.Set(fiber.HeaderRetryAfter, retryAfter(de.RetryAfter))
	}
	if de.Code == core.CodeMethodNotAllowed {
		c.Set(fiber.HeaderAllow, c.GetRespHeader(fiber.HeaderAllow))
	}
	if secondary, _ := c.Locals(localSecondary).(bool); secondary {
		return c.Status(status).JSON(toSecondaryError(de, requestID(c)))
	}
	return c.Status(status).JSON(Envelope{
		StatusCode: status, Message: de.Message, Code: string(de.Code),
		RequestID: requestID(c), Details: de.Details,
	})
}
