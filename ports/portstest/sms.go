package portstest

import (
	"context"
	"testing"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// SMSGateway is an SMS adapter and the outbox that shows what it sent.
type SMSGateway interface {
	ports.SMS
	ports.SMSOutbox
}

// SMS is the contract of ports.SMS (with its sandbox outbox): one text per idempotency key,
// a text without a key refused, the outbox per tenant and environment newest first with the
// masked number and the body, paged, and purged oldest first by age. newTenant returns the id
// of a tenant the gateway may text for (a store with foreign keys needs the tenant to exist).
func SMS(t *testing.T, newGateway func(t *testing.T) SMSGateway, newTenant func(t *testing.T) string) {
	ctx := context.Background()
	message := func(tenantID, body string) ports.SMSMessage {
		return ports.SMSMessage{IdempotencyKey: "sms:" + core.RandomToken(10), TenantID: tenantID, Environment: core.EnvTest,
			ToHash: "hash-" + body, ToMasked: "+1******0100", ToCiphertext: []byte("sealed"), Body: body, Purpose: "ALIAS_VERIFICATION"}
	}
	base := time.Now().UTC().Truncate(time.Second)
	t.Run("one text per key, listed newest first", func(t *testing.T) {
		g := newGateway(t)
		tenantID := newTenant(t)
		first, second := message(tenantID, "code 111111"), message(tenantID, "code 222222")
		for _, m := range []ports.SMSMessage{first, first, second} {
			if err := g.Send(ctx, m, base); err != nil {
				t.Fatal(err)
			}
		}
		if err := g.Send(ctx, message(newTenant(t), "another tenant"), base); err != nil {
			t.Fatal(err)
		}
		got, total, err := g.ListSMS(ctx, tenantID, core.EnvTest, ports.Page{Take: 10})
		if err != nil || total != 2 || len(got) != 2 {
			t.Fatalf("outbox = %+v (%d), %v; want the two texts of the tenant", got, total, err)
		}
		if got[0].Body != second.Body || got[1].Body != first.Body || got[0].ToMasked != second.ToMasked || got[0].Purpose != second.Purpose || got[0].ID == "" {
			t.Fatalf("outbox %+v: want the second text first, masked", got)
		}
		if !got[0].SentAt.Equal(base) {
			t.Fatalf("sent at %s, want %s", got[0].SentAt, base)
		}
		page, total, err := g.ListSMS(ctx, tenantID, core.EnvTest, ports.Page{Skip: 1, Take: 1})
		if err != nil || total != 2 || len(page) != 1 || page[0].Body != first.Body {
			t.Fatalf("second page %+v (%d), %v", page, total, err)
		}
		if live, total, err := g.ListSMS(ctx, tenantID, core.EnvLive, ports.Page{Take: 10}); err != nil || total != 0 || len(live) != 0 {
			t.Fatalf("LIVE outbox %+v (%d), %v", live, total, err)
		}
	})
	t.Run("a text without a key is refused", func(t *testing.T) {
		m := message(newTenant(t), "no key")
		m.IdempotencyKey = ""
		if err := newGateway(t).Send(ctx, m, base); err == nil {
			t.Fatal("Send without an idempotency key answered")
		}
	})
	t.Run("purge deletes texts sent before a time, at most limit", func(t *testing.T) {
		g := newGateway(t)
		tenantID := newTenant(t)
		// Far in the past, so texts other subtests sent on a shared gateway are not older.
		old := base.Add(-100 * 365 * 24 * time.Hour)
		for i, body := range []string{"oldest", "old", "recent"} {
			if err := g.Send(ctx, message(tenantID, body), old.Add(time.Duration(i)*time.Hour)); err != nil {
				t.Fatal(err)
			}
		}
		n, err := g.PurgeSMS(ctx, old.Add(90*time.Minute), 1)
		if err != nil || n != 1 {
			t.Fatalf("purge = %d, %v; want 1", n, err)
		}
		left, _, err := g.ListSMS(ctx, tenantID, core.EnvTest, ports.Page{Take: 10})
		if err != nil || len(left) != 2 || left[0].Body != "recent" || left[1].Body != "old" {
			t.Fatalf("after purging one: %+v, %v", left, err)
		}
		if n, err := g.PurgeSMS(ctx, old.Add(90*time.Minute), 10); err != nil || n != 1 {
			t.Fatalf("second purge = %d, %v; want 1", n, err)
		}
	})
}
