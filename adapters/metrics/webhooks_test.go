package metrics

import (
	"context"
	"errors"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// scriptedSender answers each Send with the next status and error of its script.
type scriptedSender struct {
	statuses []int
	errs     []error
}

func (s *scriptedSender) CheckDestination(context.Context, string, bool) error { return nil }

func (s *scriptedSender) Send(context.Context, string, []byte, map[string]string, bool) (int, error) {
	status, err := s.statuses[0], s.errs[0]
	s.statuses, s.errs = s.statuses[1:], s.errs[1:]
	return status, err
}

// TestCountingSender: a 2xx counts as succeeded, another answer as rejected, no answer as
// unreachable; the sender's own answer passes unchanged.
func TestCountingSender(t *testing.T) {
	reg := prometheus.NewRegistry()
	refused := errors.New("connection refused")
	inner := &scriptedSender{statuses: []int{204, 500, 0, 200}, errs: []error{nil, nil, refused, nil}}
	s, err := NewCountingSender(inner, reg)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{204, 500, 0, 200} {
		status, err := s.Send(context.Background(), "https://example.com", nil, nil, false)
		if status != want || (i == 2) != errors.Is(err, refused) {
			t.Fatalf("send %d: %d, %v", i, status, err)
		}
	}
	got := counterValues(t, reg, "corridor_webhook_attempts_total", "outcome")
	if got["succeeded"] != 2 || got["rejected"] != 1 || got["unreachable"] != 1 {
		t.Fatalf("attempts %v", got)
	}
}

// counterValues reads a counter family's values by one label.
func counterValues(t *testing.T, reg *prometheus.Registry, name, label string) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		for _, m := range f.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == label {
					out[l.GetValue()] = m.GetCounter().GetValue()
				}
			}
		}
	}
	return out
}
