// Package sms holds the SMS adapters. Sandbox stores every text in a Postgres outbox (inside
// the caller's unit of work, so a rolled-back request sends nothing) that TEST callers read at
// GET /v1/sandbox/sms-messages. Outbox entries show only the masked number.
package sms

import (
	"context"
	"errors"
	"time"

	"github.com/uptrace/bun"

	"corridor/adapters/postgres"
	"corridor/core"
	"corridor/ports"
)

// Sandbox is the outbox SMS adapter.
type Sandbox struct {
	db *bun.DB
}

var (
	_ ports.SMS       = (*Sandbox)(nil)
	_ ports.SMSOutbox = (*Sandbox)(nil)
)

// NewSandbox builds the adapter over the service's database.
func NewSandbox(db *bun.DB) *Sandbox {
	if db == nil {
		panic("sms: NewSandbox needs a database")
	}
	return &Sandbox{db: db}
}

type messageModel struct {
	bun.BaseModel `bun:"table:sms_messages"`
	ID            string    `bun:"id,pk"`
	TenantID      string    `bun:"tenant_id"`
	Environment   string    `bun:"environment"`
	ToHash        string    `bun:"to_hash"`
	ToMasked      string    `bun:"to_masked"`
	ToCiphertext  []byte    `bun:"to_ciphertext"`
	Body          string    `bun:"body"`
	Purpose       string    `bun:"purpose"`
	CreatedAt     time.Time `bun:"created_at"`
}

// Send writes the message to the outbox in the caller's transaction.
func (s *Sandbox) Send(ctx context.Context, m ports.SMSMessage, now time.Time) error {
	tx, ok := postgres.TxFromContext(ctx)
	if !ok {
		return errors.New("sms: Send outside a unit of work")
	}
	row := messageModel{ID: core.NewID("sms"), TenantID: m.TenantID, Environment: string(m.Environment), ToHash: m.ToHash,
		ToMasked: m.ToMasked, ToCiphertext: m.ToCiphertext, Body: m.Body, Purpose: m.Purpose, CreatedAt: now}
	_, err := tx.NewInsert().Model(&row).Exec(ctx)
	return err
}

// ListSMS returns a tenant's outbox, newest first.
func (s *Sandbox) ListSMS(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]ports.SentSMS, int, error) {
	var rows []messageModel
	total, err := s.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("id DESC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out := make([]ports.SentSMS, len(rows))
	for i, m := range rows {
		out[i] = ports.SentSMS{ID: m.ID, ToMasked: m.ToMasked, Body: m.Body, Purpose: m.Purpose, SentAt: m.CreatedAt.UTC()}
	}
	return out, int(total), nil
}
