package fake

import (
	"context"
	"errors"
	"sort"
	"sync"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// SMS is an in-memory gateway and its outbox: one text per idempotency key (a second Send of
// a key is a no-op), listed per tenant and environment newest first, purged by age.
type SMS struct {
	mu    sync.Mutex
	keys  map[string]bool
	texts []storedSMS
}

type storedSMS struct {
	message ports.SMSMessage
	sent    ports.SentSMS
}

var (
	_ ports.SMS       = (*SMS)(nil)
	_ ports.SMSOutbox = (*SMS)(nil)
)

// Send stores the text once per key.
func (s *SMS) Send(_ context.Context, m ports.SMSMessage, now time.Time) error {
	if m.IdempotencyKey == "" {
		return errors.New("fake sms: a text needs an idempotency key")
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.keys == nil {
		s.keys = map[string]bool{}
	}
	if s.keys[m.IdempotencyKey] {
		return nil
	}
	s.keys[m.IdempotencyKey] = true
	s.texts = append(s.texts, storedSMS{message: m, sent: ports.SentSMS{ID: core.NewID("sms"), ToMasked: m.ToMasked, Body: m.Body,
		Purpose: m.Purpose, SentAt: now.UTC()}})
	return nil
}

// ListSMS returns a tenant's outbox in one environment, newest first.
func (s *SMS) ListSMS(_ context.Context, tenantID string, env core.Environment, p ports.Page) ([]ports.SentSMS, int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ports.SentSMS
	for i := len(s.texts) - 1; i >= 0; i-- {
		if m := s.texts[i].message; m.TenantID == tenantID && m.Environment == env {
			out = append(out, s.texts[i].sent)
		}
	}
	rows, total := page(out, p)
	return rows, total, nil
}

// PurgeSMS deletes up to limit texts sent before a time, oldest first.
func (s *SMS) PurgeSMS(_ context.Context, before time.Time, limit int) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	order := make([]int, len(s.texts))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return s.texts[order[a]].sent.SentAt.Before(s.texts[order[b]].sent.SentAt) })
	drop := map[int]bool{}
	for _, i := range order {
		if len(drop) == limit || !s.texts[i].sent.SentAt.Before(before) {
			break
		}
		drop[i] = true
	}
	kept := s.texts[:0]
	for i, t := range s.texts {
		if !drop[i] {
			kept = append(kept, t)
		}
	}
	s.texts = kept
	return len(drop), nil
}

// Sent returns every stored message, oldest first, with the fields the gateway received.
func (s *SMS) Sent() []ports.SMSMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]ports.SMSMessage, len(s.texts))
	for i, t := range s.texts {
		out[i] = t.message
	}
	return out
}
