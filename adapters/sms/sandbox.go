// Package sms holds the SMS adapters. Sandbox stores every text in a Postgres table, as a
// gateway would send it: called from the service's SMS outbox job after commit (so a
// rolled-back request sends nothing), once per idempotency key; TEST callers read it at
// GET /v1/sandbox/sms-messages. Outbox entries show only the masked number. Bodies hold codes
// and claim links, so they are stored only encrypted, bound to the message id; PurgeSMS is the
// retention pass.
package sms

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Sandbox is the outbox SMS adapter.
type Sandbox struct {
	db     *bun.DB
	cipher ports.Cipher
}

var (
	_ ports.SMS       = (*Sandbox)(nil)
	_ ports.SMSOutbox = (*Sandbox)(nil)
)

// NewSandbox builds the adapter over the service's database; the cipher seals message bodies.
func NewSandbox(db *bun.DB, cipher ports.Cipher) *Sandbox {
	if db == nil || cipher == nil {
		panic("sms: NewSandbox needs a database and a cipher")
	}
	return &Sandbox{db: db, cipher: cipher}
}

// bodyContext binds a body's ciphertext to its message, so one row's body cannot be moved to
// another.
func bodyContext(id string) string { return "sms_message:" + id }

type messageModel struct {
	bun.BaseModel  `bun:"table:sms_messages"`
	ID             string    `bun:"id,pk"`
	IdempotencyKey string    `bun:"idempotency_key,nullzero"`
	TenantID       string    `bun:"tenant_id,pk"`
	Environment    string    `bun:"environment"`
	ToHash         string    `bun:"to_hash"`
	ToMasked       string    `bun:"to_masked"`
	ToCiphertext   []byte    `bun:"to_ciphertext"`
	BodyCiphertext []byte    `bun:"body_ciphertext"`
	Purpose        string    `bun:"purpose"`
	CreatedAt      time.Time `bun:"created_at"`
}

// Send stores the message once per idempotency key, on its own connection, as a gateway
// outside the service would: a second send of a key is a no-op.
func (s *Sandbox) Send(ctx context.Context, m ports.SMSMessage, now time.Time) error {
	if m.IdempotencyKey == "" {
		return errors.New("sms: a text needs an idempotency key")
	}
	row := messageModel{ID: core.NewID("sms"), IdempotencyKey: m.IdempotencyKey, TenantID: m.TenantID, Environment: string(m.Environment), ToHash: m.ToHash,
		ToMasked: m.ToMasked, ToCiphertext: m.ToCiphertext, Purpose: m.Purpose, CreatedAt: now}
	sealed, err := s.cipher.Encrypt([]byte(m.Body), bodyContext(row.ID))
	if err != nil {
		return err
	}
	row.BodyCiphertext = sealed
	_, err = s.db.NewInsert().Model(&row).On("CONFLICT (tenant_id, idempotency_key) DO NOTHING").Exec(ctx)
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
		body, err := s.cipher.Decrypt(m.BodyCiphertext, bodyContext(m.ID))
		if err != nil {
			return nil, 0, fmt.Errorf("sms: open message %s: %w", m.ID, err)
		}
		out[i] = ports.SentSMS{ID: m.ID, ToMasked: m.ToMasked, Body: string(body), Purpose: m.Purpose, SentAt: m.CreatedAt.UTC()}
	}
	return out, int(total), nil
}

// PurgeSMS deletes up to limit messages sent before a time, oldest first. It names them by
// their key: on Citus the subquery's keys are gathered from every shard first, then deleted
// per shard.
func (s *Sandbox) PurgeSMS(ctx context.Context, before time.Time, limit int) (int, error) {
	res, err := s.db.NewRaw(`DELETE FROM sms_messages WHERE (tenant_id, id) IN
		(SELECT tenant_id, id FROM sms_messages WHERE created_at < ? ORDER BY created_at LIMIT ?)`, before.UTC(), limit).Exec(ctx)
	if err != nil {
		return 0, err
	}
	n, err := res.RowsAffected()
	return int(n), err
}
