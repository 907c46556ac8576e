package offramp

import (
	"testing"
	"time"

	"github.com/corridorhq/corridor/core/recipient"
)

// specRows is docs/api.md's off-ramp table, row by row, as (from, trigger, guard, to).
var specRows = []Row{
	{StatusCreated, TrigIntake, GuardNone, StatusRecipientResolution, EffectNone},
	{StatusRecipientResolution, TrigResolution, GuardPhoneUnknown, StatusPendingClaim, EffectOpenClaim},
	{StatusRecipientResolution, TrigResolution, GuardPhoneKnown, StatusSourceFundsConfirmed, EffectReserve},
	{StatusSourceFundsConfirmed, TrigIntake, GuardNone, StatusPolicyCheck, EffectNone},
	{StatusPolicyCheck, TrigPolicyVerdict, GuardQuotesAvailable, StatusRouteQuoted, EffectQuote},
	{StatusRouteQuoted, TrigFollows, GuardNone, StatusAwaitingRecipientConfirmation, EffectNone},
	{StatusPolicyCheck, TrigPolicyHold, GuardNoDestination, StatusPayoutSelectionRequired, EffectNone},
	{StatusPolicyCheck, TrigPolicyHold, GuardOtherHolds, StatusComplianceHold, EffectNone},
	{StatusPolicyCheck, TrigPolicyReject, GuardUnfunded, StatusCanceled, EffectVoidHold},
	{StatusPolicyCheck, TrigPolicyReject, GuardFunded, StatusRefundPending, EffectRefund},
	{StatusAwaitingRecipientConfirmation, TrigRecipientConfirm, GuardQuoteValid, StatusFundsLocked, EffectLock},
	{StatusAwaitingRecipientConfirmation, TrigQuoteExpiry, GuardQuoteExpired, StatusPolicyCheck, EffectRequote},
	{StatusPayoutSelectionRequired, TrigHoldCleared, GuardNone, StatusPolicyCheck, EffectNone},
	{StatusComplianceHold, TrigHoldCleared, GuardNone, StatusPolicyCheck, EffectNone},
	{StatusPendingClaim, TrigClaimRedeemed, GuardNone, StatusPolicyCheck, EffectNone},
	{StatusPendingClaim, TrigClaimExpires, GuardClaimFunded, StatusRefundPending, EffectRefund},
	{StatusPendingClaim, TrigClaimExpires, GuardClaimUnfunded, StatusCanceled, EffectVoidHold},
	{StatusPendingClaim, TrigSenderCancel, GuardClaimUnfunded, StatusCanceled, EffectVoidHold},
	{StatusFundsLocked, TrigProviderAccepts, GuardNone, StatusProviderSubmitted, EffectToClearing},
	{StatusProviderSubmitted, TrigProviderProgress, GuardNone, StatusProviderProcessing, EffectNone},
	{StatusProviderProcessing, TrigProviderSuccess, GuardNone, StatusDelivered, EffectDeliver},
	{StatusProviderSubmitted, TrigProviderAttention, GuardNone, StatusActionRequired, EffectNone},
	{StatusProviderProcessing, TrigProviderAttention, GuardNone, StatusActionRequired, EffectNone},
	{StatusFundsLocked, TrigProviderFailure, GuardProviderStage, StatusFailed, EffectNone},
	{StatusProviderSubmitted, TrigProviderFailure, GuardProviderStage, StatusFailed, EffectNone},
	{StatusProviderProcessing, TrigProviderFailure, GuardProviderStage, StatusFailed, EffectNone},
	{StatusActionRequired, TrigProviderFailure, GuardProviderStage, StatusFailed, EffectNone},
	{StatusFailed, TrigRefundPath, GuardNone, StatusRefundPending, EffectNone},
	{StatusRefundPending, TrigRefundSettled, GuardNone, StatusRefunded, EffectRefund},
	// Ours: a redeemed claim stuck past expiry and grace (docs/decisions/README.md).
	{StatusPayoutSelectionRequired, TrigClaimExpires, GuardClaimFunded, StatusRefundPending, EffectRefund},
	{StatusComplianceHold, TrigClaimExpires, GuardClaimFunded, StatusRefundPending, EffectRefund},
	{StatusAwaitingRecipientConfirmation, TrigClaimExpires, GuardClaimFunded, StatusRefundPending, EffectRefund},
	// Ours: a payout whose polls are exhausted waits in ACTION_REQUIRED; a later provider report
	// takes it back (docs/decisions/README.md, "Exhausted payout polls").
	{StatusProviderSubmitted, TrigProviderUnresponsive, GuardNone, StatusActionRequired, EffectNone},
	{StatusProviderProcessing, TrigProviderUnresponsive, GuardNone, StatusActionRequired, EffectNone},
	{StatusActionRequired, TrigProviderResumed, GuardNone, StatusProviderProcessing, EffectNone},
}

// TestTable_PollsExhaustedOnlyInFlight: only a payout at its provider can be given up on, and
// only ACTION_REQUIRED resumes.
func TestTable_PollsExhaustedOnlyInFlight(t *testing.T) {
	for _, s := range allStatuses() {
		_, err := Next(s, Step{Trigger: TrigProviderUnresponsive})
		if want := s == StatusProviderSubmitted || s == StatusProviderProcessing; (err == nil) != want {
			t.Errorf("%s: polls exhausted accepted=%v, want %v", s, err == nil, want)
		}
		_, err = Next(s, Step{Trigger: TrigProviderResumed})
		if want := s == StatusActionRequired; (err == nil) != want {
			t.Errorf("%s: provider resumed accepted=%v, want %v", s, err == nil, want)
		}
	}
}

func TestTable_SpecRowByRow(t *testing.T) {
	for _, want := range specRows {
		t.Run(string(want.From)+" "+string(want.Trigger)+" "+string(want.Guard), func(t *testing.T) {
			got, err := Next(want.From, Step{want.Trigger, want.Guard})
			if err != nil || got != want {
				t.Fatalf("got %+v %v, want %+v", got, err, want)
			}
		})
	}
}

func TestTable_SenderCancelOnlyWhileUnfunded(t *testing.T) {
	for _, s := range allStatuses() {
		_, err := Next(s, Step{TrigSenderCancel, GuardUnfundedPayment})
		if (err == nil) != (s.Cancelable() && !s.Funded()) {
			t.Fatalf("%s: cancel err %v, cancelable %v funded %v", s, err, s.Cancelable(), s.Funded())
		}
		if s.Funded() && s.Cancelable() {
			t.Fatalf("%s is both funded and cancelable", s)
		}
	}
}

func TestTable_NoFundedPaymentReachesCanceled(t *testing.T) {
	for _, r := range Table {
		if r.To == StatusCanceled && r.From.Funded() {
			t.Fatalf("row %+v cancels a funded payment", r)
		}
	}
}

func TestTable_TerminalStatusesHaveNoExit(t *testing.T) {
	for _, r := range Table {
		if r.From.Terminal() {
			t.Fatalf("row %+v leaves terminal %s", r, r.From)
		}
	}
	p := Payment{Status: StatusDelivered}
	if _, err := p.Apply(Step{TrigProviderFailure, GuardProviderStage}, time.Now()); err == nil || p.Status != StatusDelivered {
		t.Fatal("DELIVERED reverted")
	}
}

func TestTable_UnknownStepRefused(t *testing.T) {
	if _, err := Next(StatusCreated, Step{TrigRecipientConfirm, GuardQuoteValid}); err == nil {
		t.Fatal("confirm from CREATED accepted")
	}
	p := Payment{Status: StatusProviderSubmitted}
	if _, err := p.Apply(Step{TrigProviderSuccess, GuardNone}, time.Now()); err == nil || p.Status != StatusProviderSubmitted {
		t.Fatal("DELIVERED straight from PROVIDER_SUBMITTED")
	}
}

func allStatuses() []Status {
	seen := map[Status]bool{}
	out := []Status{}
	for _, r := range Table {
		for _, s := range []Status{r.From, r.To} {
			if !seen[s] {
				seen[s] = true
				out = append(out, s)
			}
		}
	}
	return out
}

func TestCompose(t *testing.T) {
	cases := []struct {
		name    string
		reasons []HoldReason
		verdict Verdict
		step    Step
	}{
		{"clear", nil, VerdictAllow, Step{TrigPolicyVerdict, GuardQuotesAvailable}},
		{"no destination", []HoldReason{HoldPayoutDestinationNotSelected}, VerdictHold, Step{TrigPolicyHold, GuardNoDestination}},
		{"monitoring", []HoldReason{HoldTransactionMonitoringReview}, VerdictHold, Step{TrigPolicyHold, GuardOtherHolds}},
		{"no destination and credential", []HoldReason{HoldPayoutDestinationNotSelected, HoldCredentialExpired}, VerdictHold, Step{TrigPolicyHold, GuardOtherHolds}},
		{"sanctions wins", []HoldReason{HoldProviderUnavailable, RejectSanctionsReviewRequired}, VerdictReject, Step{TrigPolicyReject, GuardUnfunded}},
		{"policy denied", []HoldReason{RejectPolicyDenied}, VerdictReject, Step{TrigPolicyReject, GuardUnfunded}},
		{"unknown fails closed", []HoldReason{"SOMETHING_NEW"}, VerdictHold, Step{TrigPolicyHold, GuardOtherHolds}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := Compose(c.reasons)
			if d.Verdict != c.verdict || d.Step(false) != c.step {
				t.Fatalf("%+v %+v", d, d.Step(false))
			}
		})
	}
	for r, rule := range Reasons {
		if (rule.Verdict == VerdictReject) != (r == RejectSanctionsReviewRequired || r == RejectPolicyDenied) {
			t.Fatalf("%s verdict %s", r, rule.Verdict)
		}
	}
	if len(Reasons) != 14 {
		t.Fatalf("hold-reason table has %d rows, docs/api.md has 14", len(Reasons))
	}
}

func TestPriceSet(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	in := QuoteInput{PaymentID: "ofp_x", SetVersion: 1, SourceAmountBaseUnits: 10_000_003, SourceChainKey: "eip155:84532",
		Now: now, Lifetime: DefaultQuoteLifetime, Speed: SpeedCheapest}
	routes := []PayoutRoute{
		{DestinationID: "dst_a", DestinationType: recipient.DestServiceBalance, Terms: Terms{Provider: "internal", FeeBps: 50, EstimatedDeliverySeconds: 5}},
		{DestinationID: "dst_b", DestinationType: recipient.DestAppWalletA, Terms: Terms{Provider: "appwallet_a", FeeBps: 100, EstimatedDeliverySeconds: 1, RequiresPrefunding: true}},
		{DestinationID: "dst_c", DestinationType: recipient.DestOnchainWallet, Network: "solana", Terms: Terms{Provider: "onchain", NetworkFeeBaseUnits: 10_000, EstimatedDeliverySeconds: 30}},
	}
	qs := PriceSet(in, routes)
	if len(qs) != 3 || qs[0].DestinationID != "dst_a" || qs[0].FeeBaseUnits != 0 || qs[0].DeliverBaseUnits != 10_000_003 {
		t.Fatalf("cheapest first, service balance fee-free: %+v", qs)
	}
	for _, q := range qs {
		if q.DeliverBaseUnits+q.FeeBaseUnits != q.SourceAmountBaseUnits || !q.ExpiresAt.Equal(now.Add(120*time.Second)) || q.Status != QuoteActive {
			t.Fatalf("quote %+v", q)
		}
	}
	a := qs[2]
	if a.DestinationID != "dst_b" || a.DestinationCurrency != "USD" || a.DestinationAmountMinor != 990 || !a.RequiresConversion || !a.RequiresPrefunding {
		t.Fatalf("app wallet quote %+v", a)
	}
	if qs[1].DestinationID != "dst_c" || !qs[1].RequiresBridge || qs[1].NetworkFeeMinor != 10_000 {
		t.Fatalf("onchain quote %+v", qs[1])
	}
	in.Speed = SpeedFastest
	if f := PriceSet(in, routes); f[0].DestinationID != "dst_b" || f[2].DestinationID != "dst_c" {
		t.Fatalf("fastest order %v %v %v", f[0].DestinationID, f[1].DestinationID, f[2].DestinationID)
	}
	in.SourceAmountBaseUnits = 5_000
	if tiny := PriceSet(in, routes[2:]); len(tiny) != 0 {
		t.Fatalf("a route whose fees eat the amount was quoted: %+v", tiny)
	}
}
