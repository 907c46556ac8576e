package metrics

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/corridorhq/corridor/app/webhooks"
)

// Outcomes of one webhook delivery attempt, the outcome label of
// corridor_webhook_attempts_total.
const (
	webhookSucceeded   = "succeeded"   // the receiver answered 2xx
	webhookRejected    = "rejected"    // the receiver answered, not 2xx
	webhookUnreachable = "unreachable" // no answer: refused destination, time-out, connection error
)

// CountingSender counts every delivery attempt by outcome at the source, around the sender
// the webhooks capability uses; attempts are what a failing receiver shows up in first.
type CountingSender struct {
	webhooks.Sender
	attempts *prometheus.CounterVec
}

var _ webhooks.Sender = (*CountingSender)(nil)

// NewCountingSender wraps inner and registers its counter on reg.
func NewCountingSender(inner webhooks.Sender, reg prometheus.Registerer) (*CountingSender, error) {
	attempts := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "corridor_webhook_attempts_total",
		Help: "Webhook delivery attempts by outcome (succeeded, rejected: a non-2xx answer, unreachable: no answer)."}, []string{"outcome"})
	for _, o := range []string{webhookSucceeded, webhookRejected, webhookUnreachable} {
		attempts.WithLabelValues(o) // every outcome's series exists from the start, at 0
	}
	if err := reg.Register(attempts); err != nil {
		return nil, err
	}
	return &CountingSender{Sender: inner, attempts: attempts}, nil
}

// Send sends through the wrapped sender and counts the outcome.
func (s *CountingSender) Send(ctx context.Context, rawURL string, body []byte, headers map[string]string, allowPrivate bool) (int, error) {
	status, err := s.Sender.Send(ctx, rawURL, body, headers, allowPrivate)
	outcome := webhookSucceeded
	switch {
	case err != nil:
		outcome = webhookUnreachable
	case status < 200 || status > 299:
		outcome = webhookRejected
	}
	s.attempts.WithLabelValues(outcome).Inc()
	return status, err
}
