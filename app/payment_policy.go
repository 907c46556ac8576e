package app

import (
	"corridor/core"
	"corridor/core/safepay"
	"time"
)

// ReasonPolicyDenied starts the failureReason of a payment the policy blocked in enforce mode
// ("POLICY_DENIED: <rule code> ...", the machine-code-then-explanation form of safepay).
const ReasonPolicyDenied = "POLICY_DENIED"

// policyDeniedPayment is the FAILED record of a payment the policy blocked: it keeps what was
// asked for, gives up its Safe nonce (failed payments hold none) and has nothing to sign.
func policyDeniedPayment(pay safepay.Payment, denied *core.Error, now time.Time) (safepay.Payment, error) {
	reason, _ := denied.Details["reason"].(string)
	failed, err := pay.Fail(ReasonPolicyDenied+": "+reason+": "+denied.Message, now)
	failed.SafeTxHash = ""
	return failed, err
}
