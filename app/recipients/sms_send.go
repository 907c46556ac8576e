package recipients

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// SMSSendArgs is the SMS outbox: a text a unit of work decided, sent by a job after that unit
// committed (docs/decisions/reliability.md), so a slow gateway never holds the unit's locks and a rolled-back
// unit texts nothing. The body holds a code or a claim link, so it travels sealed by the
// cipher (bound to the key); the number travels as the ciphertext stored on the alias or claim.
type SMSSendArgs struct {
	IdempotencyKey string    `json:"idempotencyKey"`
	TenantID       string    `json:"tenantId"`
	Environment    string    `json:"environment"`
	ToHash         string    `json:"toHash"`
	ToMasked       string    `json:"toMasked"`
	ToCiphertext   []byte    `json:"toCiphertext"`
	BodyCiphertext []byte    `json:"bodyCiphertext"`
	Purpose        string    `json:"purpose"`
	DecidedAt      time.Time `json:"decidedAt"`
}

// Kind names the job.
func (SMSSendArgs) Kind() string { return "sms.send" }

const (
	smsSendMaxAttempts = 10
	smsSendTimeout     = 30 * time.Second
)

// smsJobContext binds a queued body's ciphertext to its idempotency key.
func smsJobContext(key string) string { return "sms_job:" + key }

// QueueSMS writes m to the SMS outbox inside the caller's unit of work. key is derived from
// the business object the text is about, so the gateway sends it once however often the job
// runs. The job waits in the texts' own queue (ports.QueueTexts): someone is waiting for it.
func (s *Service) QueueSMS(ctx context.Context, key string, m ports.SMSMessage, now time.Time) error {
	sealed, err := s.cipher.Encrypt([]byte(m.Body), smsJobContext(key))
	if err != nil {
		return err
	}
	return s.jobs.Enqueue(ctx, SMSSendArgs{IdempotencyKey: key, TenantID: m.TenantID, Environment: string(m.Environment),
		ToHash: m.ToHash, ToMasked: m.ToMasked, ToCiphertext: m.ToCiphertext, BodyCiphertext: sealed, Purpose: m.Purpose,
		DecidedAt: now}, ports.JobOptions{MaxAttempts: smsSendMaxAttempts, Queue: ports.QueueTexts})
}

// SendQueuedSMS is the sms.send job: it opens the body and hands the text to the gateway,
// outside any transaction. The gateway's own record (the sandbox outbox) is the result.
func (s *Service) SendQueuedSMS(ctx context.Context, a SMSSendArgs) error {
	body, err := s.cipher.Decrypt(a.BodyCiphertext, smsJobContext(a.IdempotencyKey))
	if err != nil {
		return err
	}
	err = s.sms.Send(ctx, ports.SMSMessage{IdempotencyKey: a.IdempotencyKey, TenantID: a.TenantID,
		Environment: core.Environment(a.Environment), ToHash: a.ToHash, ToMasked: a.ToMasked, ToCiphertext: a.ToCiphertext,
		Body: string(body), Purpose: a.Purpose}, a.DecidedAt)
	if err == nil {
		kernel.CrashPoint(kernel.CrashSMSSent)
	}
	return err
}
