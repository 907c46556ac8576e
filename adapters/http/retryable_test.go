package http

import (
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/claim"
	"github.com/corridorhq/corridor/core/safepay"
)

// TestRetryableCodes: the refusals that tell a client to try again later are declared beside the
// code table, each is a code the table knows, and each is a 409, 408, 429 or 5xx (a 4xx that
// is the client's own mistake is never "try again later").
func TestRetryableCodes(t *testing.T) {
	for _, code := range []core.Code{claim.CodeNotFunded, safepay.CodeQueueFull, core.CodeIdempotencyRequestInProgress,
		core.CodeRateLimited, core.CodeServiceUnavailable, core.CodeChainUnavailable, core.CodeProviderUnavailable} {
		if !RetryableRefusal(code, StatusFor(code)) {
			t.Errorf("%s is not declared retryable", code)
		}
	}
	for code := range retryableCodes {
		status, known := statusByCode[code]
		if !known {
			t.Errorf("retryable code %s is not in the code table", code)
			continue
		}
		if status != 409 && status != 408 && status != 429 && status < 500 {
			t.Errorf("retryable code %s answers %d", code, status)
		}
	}
	for _, status := range []int{408, 429, 500, 502, 503, 504} {
		if !RetryableRefusal("", status) {
			t.Errorf("status %d is not retryable", status)
		}
	}
	for _, code := range []core.Code{core.CodeValidationFailed, core.CodeInvalidState, core.CodeIdempotencyKeyReused,
		claim.CodeLinkUsed, safepay.CodePaymentNotFound} {
		if RetryableRefusal(code, StatusFor(code)) {
			t.Errorf("%s is declared retryable, but retrying it cannot succeed", code)
		}
	}
}
