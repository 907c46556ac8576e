package outside_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/outside"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

type downSMS struct{ err error }

func (d *downSMS) Send(context.Context, ports.SMSMessage, time.Time) error { return d.err }

// TestHealth_UnansweredCallsMakeADependencyUnavailable: calls that get no answer make the
// dependency unavailable at the third in a row and are answered PROVIDER_UNAVAILABLE; a
// refusal the vendor gave is an answer (it neither counts nor is rewritten); one answer makes
// it ok again.
func TestHealth_UnansweredCallsMakeADependencyUnavailable(t *testing.T) {
	h := outside.NewHealth(map[string]string{outside.SMSHealthName: outside.KindSMS})
	gw := &downSMS{err: errors.New("dial tcp: connection refused")}
	sms := outside.SMS{SMS: gw, Health: h}
	status := func() outside.DependencyHealth { return h.Snapshot()[0] }
	if s := status(); s.Status != outside.HealthOK || s.Kind != outside.KindSMS {
		t.Fatalf("before any call: %+v", s)
	}
	for i := 1; i <= outside.FailuresToUnavailable; i++ {
		err := sms.Send(context.Background(), ports.SMSMessage{}, time.Now())
		if !core.HasCode(err, core.CodeProviderUnavailable) {
			t.Fatalf("call %d answered %v, want PROVIDER_UNAVAILABLE", i, err)
		}
		want := outside.HealthOK
		if i == outside.FailuresToUnavailable {
			want = outside.HealthUnavailable
		}
		if s := status(); s.Status != want || s.Failures != i {
			t.Fatalf("after %d failures: %+v, want %s", i, s, want)
		}
	}
	if s := status(); s.Problem == "" || s.Since.IsZero() {
		t.Fatalf("unavailable without a problem or a start: %+v", s)
	}
	gw.err = core.E(core.CodeValidationFailed, "the number is not mobile")
	if err := sms.Send(context.Background(), ports.SMSMessage{}, time.Now()); !core.HasCode(err, core.CodeValidationFailed) {
		t.Fatalf("a vendor's refusal became %v", err)
	}
	if s := status(); s.Status != outside.HealthOK || s.Failures != 0 || s.Problem != "" {
		t.Fatalf("after an answer: %+v", s)
	}
	gw.err = context.Canceled
	_ = sms.Send(context.Background(), ports.SMSMessage{}, time.Now())
	if s := status(); s.Failures != 0 {
		t.Fatalf("a caller that left counted against the vendor: %+v", s)
	}
}
