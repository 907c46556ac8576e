package invoice

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
)

var allTriggers = []Trigger{TriggerSend, TriggerCancel, TriggerFunded, TriggerExpire, TriggerDeliver, TriggerReleased, TriggerRefunded}

// TestInvoice_Table walks docs/api.md's escrow invoice table row by row, and every other pair of
// status and trigger is refused with INVALID_STATE.
func TestInvoice_Table(t *testing.T) {
	spec := map[Status]map[Trigger]Status{
		StatusDraft:     {TriggerSend: StatusSent, TriggerCancel: StatusCancelled},
		StatusSent:      {TriggerFunded: StatusFunded, TriggerCancel: StatusCancelled, TriggerExpire: StatusExpired},
		StatusFunded:    {TriggerDeliver: StatusDelivered, TriggerReleased: StatusReleased, TriggerRefunded: StatusRefunded},
		StatusDelivered: {TriggerReleased: StatusReleased, TriggerRefunded: StatusRefunded},
		StatusExpired:   {TriggerRefunded: StatusRefunded},
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, from := range Statuses {
		for _, tr := range allTriggers {
			want, ok := spec[from][tr]
			got, err := Invoice{Status: from}.Apply(tr, now)
			switch {
			case ok && (err != nil || got.Status != want):
				t.Errorf("%s --%s--> %s, %v; want %s", from, tr, got.Status, err, want)
			case !ok && (!errors.Is(err, core.ErrInvalidState) || got.Status != from):
				t.Errorf("%s --%s--> %s, %v; want INVALID_STATE", from, tr, got.Status, err)
			}
		}
	}
	for _, s := range []Status{StatusReleased, StatusRefunded, StatusCancelled} {
		if !s.Terminal() {
			t.Errorf("%s is not terminal", s)
		}
	}
}

func TestInvoice_Poll(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	sent := func(exp *time.Time) Invoice {
		return Invoice{Status: StatusSent, AmountBaseUnits: 100, ExpiresAt: exp}
	}
	cases := []struct {
		name    string
		inv     Invoice
		balance int64
		want    Trigger
		ok      bool
	}{
		{"funded before expiry", sent(&future), 100, TriggerFunded, true},
		{"over-funded", sent(nil), 150, TriggerFunded, true},
		{"under-funded, not expired", sent(&future), 99, "", false},
		{"under-funded, expired", sent(&past), 99, TriggerExpire, true},
		{"expiry exactly now, empty", sent(&now), 0, TriggerExpire, true},
		{"funds win over expiry", sent(&past), 100, TriggerFunded, true},
		{"funds win at the moment of expiry", sent(&now), 100, TriggerFunded, true},
		{"a FUNDED invoice never expires", Invoice{Status: StatusFunded, AmountBaseUnits: 100, ExpiresAt: &past}, 0, "", false},
		{"DRAFT is not polled", Invoice{Status: StatusDraft, AmountBaseUnits: 100, ExpiresAt: &past}, 100, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := Poll(c.inv, c.balance, now)
			if got != c.want || ok != c.ok {
				t.Fatalf("Poll = %q %v, want %q %v", got, ok, c.want, c.ok)
			}
		})
	}
}

func TestInvoice_CheckSettlement(t *testing.T) {
	now := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	past, future := now.Add(-time.Second), now.Add(time.Hour)
	inv := func(s Status, exp *time.Time) Invoice {
		return Invoice{ID: "inv_x", Status: s, AmountBaseUnits: 100, ExpiresAt: exp}
	}
	cases := []struct {
		name    string
		inv     Invoice
		kind    Settlement
		balance int64
		amount  int64
		code    core.Code
	}{
		{"release FUNDED pays the amount", inv(StatusFunded, &future), Release, 120, 100, ""},
		{"release DELIVERED", inv(StatusDelivered, nil), Release, 100, 100, ""},
		{"release refused after expiry", inv(StatusFunded, &past), Release, 100, 0, core.CodeInvalidState},
		{"release of SENT refused", inv(StatusSent, &future), Release, 100, 0, core.CodeInvalidState},
		{"release of EXPIRED refused", inv(StatusExpired, &past), Release, 100, 0, core.CodeInvalidState},
		{"refund FUNDED sweeps the balance", inv(StatusFunded, &future), Refund, 120, 120, ""},
		{"refund of a funded expired invoice", inv(StatusFunded, &past), Refund, 100, 100, ""},
		{"refund EXPIRED sweeps the actual balance", inv(StatusExpired, &past), Refund, 40, 40, ""},
		{"refund EXPIRED empty", inv(StatusExpired, &past), Refund, 0, 0, CodeNothingToRefund},
		{"refund DRAFT refused", inv(StatusDraft, nil), Refund, 0, 0, core.CodeInvalidState},
		{"release in flight", inv(StatusFunded, nil).Link(Release, "pay_1", now), Release, 100, 0, CodeSettlementInFlight},
		{"refund while release in flight", inv(StatusFunded, nil).Link(Release, "pay_1", now), Refund, 100, 0, CodeSettlementInFlight},
		{"release while refund in flight", inv(StatusDelivered, nil).Link(Refund, "pay_1", now), Release, 100, 0, CodeSettlementInFlight},
		{"after unlink, again", inv(StatusFunded, nil).Link(Release, "pay_1", now).Unlink(now), Release, 100, 100, ""},
		{"RELEASED is terminal", inv(StatusReleased, nil).Link(Release, "pay_1", now), Refund, 100, 0, core.CodeInvalidState},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			amount, err := CheckSettlement(c.inv, c.kind, c.balance, now)
			if c.code == "" {
				if err != nil || amount != c.amount {
					t.Fatalf("= %d, %v; want %d", amount, err, c.amount)
				}
				return
			}
			var e *core.Error
			if !errors.As(err, &e) || e.Code != c.code {
				t.Fatalf("err %v, want %s", err, c.code)
			}
		})
	}
}

func TestInvoice_SettledAndCancel(t *testing.T) {
	now := time.Now()
	r, err := Invoice{Status: StatusDelivered}.Link(Release, "pay_1", now).Settled(now)
	if err != nil || r.Status != StatusReleased {
		t.Fatalf("release settled: %v %v", r.Status, err)
	}
	f, err := Invoice{Status: StatusExpired}.Link(Refund, "pay_2", now).Settled(now)
	if err != nil || f.Status != StatusRefunded {
		t.Fatalf("refund settled: %v %v", f.Status, err)
	}
	if err := CheckCancel(Invoice{Status: StatusSent}, 0); err != nil {
		t.Fatalf("cancel SENT, empty: %v", err)
	}
	if err := CheckCancel(Invoice{Status: StatusSent}, 1); !errors.Is(err, core.ErrInvalidState) {
		t.Fatalf("cancel SENT with funds: %v", err)
	}
	if err := CheckCancel(Invoice{Status: StatusFunded}, 0); !errors.Is(err, core.ErrInvalidState) {
		t.Fatalf("cancel FUNDED: %v", err)
	}
}

func TestInvoice_ValidateDraft(t *testing.T) {
	now := time.Now()
	a, b, c := "0x1111111111111111111111111111111111111111", "0x2222222222222222222222222222222222222222", "0x3333333333333333333333333333333333333333"
	past := now.Add(-time.Minute)
	bad := int64(1)
	cases := []struct {
		name  string
		in    DraftInput
		field string
	}{
		{"payer equals payee", DraftInput{AmountUsd: "1", PayerAddress: a, PayeeAddress: a}, "payeeAddress"},
		{"arbiter equals payer", DraftInput{AmountUsd: "1", PayerAddress: a, PayeeAddress: b, ArbiterAddress: a}, "arbiterAddress"},
		{"arbiter equals payee", DraftInput{AmountUsd: "1", PayerAddress: a, PayeeAddress: b, ArbiterAddress: b}, "arbiterAddress"},
		{"zero amount", DraftInput{AmountUsd: "0", PayerAddress: a, PayeeAddress: b}, "amountUsd"},
		{"bad amount", DraftInput{AmountUsd: "1.0000001", PayerAddress: a, PayeeAddress: b}, "amountUsd"},
		{"amount with spaces", DraftInput{AmountUsd: " 1 ", PayerAddress: a, PayeeAddress: b}, "amountUsd"},
		{"missing payer", DraftInput{AmountUsd: "1", PayeeAddress: b}, "payerAddress"},
		{"past expiry", DraftInput{AmountUsd: "1", PayerAddress: a, PayeeAddress: b, ExpiresAt: &past}, "expiresAt"},
		{"wrong chain", DraftInput{AmountUsd: "1", PayerAddress: a, PayeeAddress: b, ChainID: &bad}, "chainId"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ValidateDraft(core.EnvTest, tc.in, c, now)
			var e *core.Error
			if !errors.As(err, &e) || e.Code != core.CodeValidationFailed {
				t.Fatalf("err %v", err)
			}
			if _, ok := e.Details["fields"].(map[string]any)[tc.field]; !ok {
				t.Fatalf("fields %v, want %s", e.Details["fields"], tc.field)
			}
		})
	}
	d, err := ValidateDraft(core.EnvTest, DraftInput{AmountUsd: "12.5", PayerAddress: a, PayeeAddress: b}, c, now)
	if err != nil || d.ArbiterAddrs != c || d.AmountBaseUnits != 12_500_000 || d.ChainID != 84532 {
		t.Fatalf("draft %+v %v", d, err)
	}
}

// TestNext_RefusalReadsAsASentence: every trigger's refusal names it as a past participle.
func TestNext_RefusalReadsAsASentence(t *testing.T) {
	for _, tr := range []Trigger{TriggerSend, TriggerCancel, TriggerFunded, TriggerExpire, TriggerDeliver, TriggerReleased, TriggerRefunded} {
		if triggerVerb[tr] == "" {
			t.Errorf("trigger %q has no verb", tr)
		}
	}
	if _, err := Next(StatusReleased, TriggerReleased); err == nil || !strings.Contains(err.Error(), "cannot be released") {
		t.Fatalf("refusal: %v", err)
	}
}
