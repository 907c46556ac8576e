package kernel

// Crash points name the steps between an outside effect and its record (docs/decisions/reliability.md): the
// process may die right there, after the vendor or the chain acted and before the service wrote
// down that it did. A binary built with the build tag `crashpoints` kills itself with SIGKILL at
// the point named by CORRIDOR_CRASH_POINT (crashpoint_on.go); every other build compiles
// CrashPoint to nothing (crashpoint_off.go), so a production binary cannot be made to crash by
// its environment. The crash tests (test/crash) start such a binary, kill it at a point, start
// it again and check that the effect is neither lost nor repeated.
const (
	// CrashPayoutSubmitted: a payout provider accepted the submission; PROVIDER_SUBMITTED and
	// the clearing transfer are not recorded yet.
	CrashPayoutSubmitted = "payout.submitted"
	// CrashBetweenTenantLegs: the sender's leg of money between tenants (an off-ramp delivery
	// into another tenant's service balance) is committed; the recipient's leg is not posted
	// yet. Not an outside effect: the point where one unit of work ends and the next begins.
	CrashBetweenTenantLegs = "ledger.between_tenant_legs"
	// CrashWebhookDelivered: a partner's endpoint answered; the attempt is not recorded yet.
	CrashWebhookDelivered = "webhook.delivered"
	// CrashSMSSent: the SMS gateway took a text; the outbox job is not completed yet.
	CrashSMSSent = "sms.sent"
	// CrashCardIssuerStatusSent: the issuer took a card's status; the job is not completed yet.
	CrashCardIssuerStatusSent = "card.issuer_status.sent"
	// CrashClaimChainSent: an escrow transaction (fund, lock, release, refund, cancel) was sent;
	// its hash is not recorded on the claim yet.
	CrashClaimChainSent = "claim.chain.sent"
	// CrashSafeExecutionSent: a Safe payment's execTransaction was sent; not recorded yet.
	CrashSafeExecutionSent = "safepay.execution.sent"
	// CrashSafeDeploymentSent: a wallet's Safe deployment was sent; not recorded yet.
	CrashSafeDeploymentSent = "wallet.deployment.sent"
	// CrashCardSettlementSent: a captured card spend's settlement was sent; not recorded yet.
	CrashCardSettlementSent = "card.settlement.sent"
	// CrashCheckoutSweepSent: a checkout deposit's sweep was sent; not recorded yet.
	CrashCheckoutSweepSent = "checkout.sweep.sent"
	// CrashCheckoutRefundSent: a checkout refund was sent; its hash is not recorded yet.
	CrashCheckoutRefundSent = "checkout.refund.sent"
)
