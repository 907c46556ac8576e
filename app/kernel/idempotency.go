package kernel

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// IdempotencyDeps are the ports of the Idempotency-Key store.
type IdempotencyDeps struct {
	Store ports.Store
	Clock ports.Clock // nil: the wall clock
	// TTL is how long a POST outcome is replayable (docs/decisions/api.md: 24 h when zero).
	TTL time.Duration
}

// Idempotency runs POSTs at most once per Idempotency-Key (docs/decisions/api.md). It sits in the kernel because
// the HTTP layer wraps every capability's POST in it, and the stored outcome commits in the
// same transaction as whichever use case ran.
type Idempotency struct {
	store Units[txView]
	clock ports.Clock
	ttl   time.Duration
}

// NewIdempotency checks the wiring and applies the defaults.
func NewIdempotency(d IdempotencyDeps) (*Idempotency, error) {
	if err := RequirePorts("idempotency", Port{"Store", d.Store}); err != nil {
		return nil, err
	}
	if d.TTL <= 0 {
		d.TTL = 24 * time.Hour
	}
	return &Idempotency{store: NewUnits(d.Store, narrow), clock: ClockOrSystem(d.Clock), ttl: d.TTL}, nil
}

// IdempotentRequest identifies one POST under an Idempotency-Key (docs/decisions/api.md).
type IdempotentRequest struct {
	Scope       string // "tenant:{id}", or "user:{sub}" for a session without a tenant
	Environment core.Environment
	Key         string
	Fingerprint string
}

// Outcome is the response a POST produced, as stored for replay.
type Outcome struct {
	StatusCode  int
	Body        []byte
	ContentType string
	// StoredBody, when set, is what a replay returns instead of Body: a response that carries
	// a secret shown once (an API key, an invite token) is stored with the secret removed, so
	// no plaintext secret rests in the idempotency table (docs/decisions/tenancy.md).
	StoredBody []byte
	// Retryable marks a refusal that tells the client to send the same request again later
	// (the HTTP layer's declared list of retryable codes): it is never stored, so the retry runs.
	Retryable bool
}

// storable reports whether an outcome is kept for replay. Not stored, so a retry with the same
// key runs again: authentication failures (401), a request refused for its form before or
// while validating (400: malformed JSON, a failed validation; it changed nothing, and the
// client may correct the body under the same key, as Stripe keeps only requests that began
// executing), timeouts (408), rate limits (429), server errors and unavailable dependencies
// (5xx), and every refusal the HTTP layer declares retryable.
func (o Outcome) storable() bool {
	switch {
	case o.Retryable, o.StatusCode >= 500:
		return false
	case o.StatusCode == 400, o.StatusCode == 401, o.StatusCode == 408, o.StatusCode == 429:
		return false
	}
	return true
}

func (o Outcome) stored() []byte {
	if o.StoredBody != nil {
		return o.StoredBody
	}
	return o.Body
}

// MaxIdempotencyKeyLength bounds the header value.
const MaxIdempotencyKeyLength = 255

// ValidateIdempotencyKey accepts 1–255 printable ASCII characters.
func ValidateIdempotencyKey(key string) error {
	if len(key) == 0 || len(key) > MaxIdempotencyKeyLength {
		return core.Invalid("Idempotency-Key", "must be 1 to 255 characters")
	}
	for i := 0; i < len(key); i++ {
		if key[i] < 0x21 || key[i] > 0x7e {
			return core.Invalid("Idempotency-Key", "must be printable ASCII without spaces")
		}
	}
	return nil
}

// Idempotent runs a POST at most once per key. The record is written in the same transaction
// as the effect: run receives a context carrying that transaction, and every use case it calls
// joins it as a savepoint. A concurrent request holding the key gets
// IDEMPOTENCY_REQUEST_IN_PROGRESS; a stored outcome is replayed (replayed=true) when the
// fingerprint matches, else IDEMPOTENCY_KEY_REUSED. An outcome that is not stored still
// commits whatever the request did (an attempt counted against a code's budget stays counted),
// exactly as the same request sent without a key would: the key decides replay, never effect.
func (s *Idempotency) Idempotent(ctx context.Context, req IdempotentRequest, run func(ctx context.Context) (Outcome, error)) (Outcome, bool, error) {
	var out Outcome
	replayed := false
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		// A retried run (the whole request, run included) starts from nothing.
		out, replayed = Outcome{}, false
		repo := tx.Idempotency()
		now := s.clock.Now()
		// A stored outcome replays without the lock, so concurrent retries of a finished
		// request all get it; only a first run takes the lock, then checks again. Claim does
		// the three steps in one round trip.
		rec, found, claimed, err := repo.Claim(withExpectedLedger(ctx), req.Scope, req.Environment, req.Key, now)
		if err != nil || found {
			return firstErr(err, func() error { return replay(rec, req, &out, &replayed) })
		}
		if !claimed {
			return core.E(core.CodeIdempotencyRequestInProgress, "a request with this Idempotency-Key is still in progress; retry after it completes")
		}
		if out, err = run(ctx); err != nil {
			return err
		}
		if !out.storable() {
			return nil
		}
		return repo.Save(ctx, ports.IdempotencyRecord{
			Scope: req.Scope, Environment: req.Environment, Key: req.Key, Fingerprint: req.Fingerprint,
			StatusCode: out.StatusCode, Body: out.stored(), ContentType: out.ContentType,
			CreatedAt: now, ExpiresAt: now.Add(s.ttl),
		})
	})
	return out, replayed, err
}

// ledgerIntentAnswer is the prepared answer ExpectLedger keeps.
const ledgerIntentAnswer = "kernel:ledger-intent"

// ExpectLedger names, while a request prepares, the ledger rows its unit of work will lock:
// the unit's claim of the Idempotency-Key carries them to the store (ports.LedgerIntent), which
// may lock and read them in the claim's own statement instead of a round trip of their own.
// Only what the request will surely post belongs there; naming nothing costs nothing.
func ExpectLedger(ctx context.Context, in ports.LedgerIntent) {
	Remember(ctx, ledgerIntentAnswer, in)
}

// withExpectedLedger marks the claim's context with the intent the request prepared, if any.
func withExpectedLedger(ctx context.Context) context.Context {
	if in, ok := Recall[ports.LedgerIntent](ctx, ledgerIntentAnswer); ok {
		return ports.WithLedgerIntent(ctx, in)
	}
	return ctx
}

// firstErr returns err when set, else the result of then.
func firstErr(err error, then func() error) error {
	if err != nil {
		return err
	}
	return then()
}

func replay(rec ports.IdempotencyRecord, req IdempotentRequest, out *Outcome, replayed *bool) error {
	if rec.Fingerprint != req.Fingerprint {
		return core.E(core.CodeIdempotencyKeyReused,
			"this Idempotency-Key was used with a different request; use a new key for a new request")
	}
	*out = Outcome{StatusCode: rec.StatusCode, Body: rec.Body, ContentType: rec.ContentType}
	*replayed = true
	return nil
}

// PurgeIdempotency deletes expired records in bounded batches; serve runs it periodically.
func (s *Idempotency) PurgeIdempotency(ctx context.Context) (int, error) {
	var n int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		n, err = tx.Idempotency().DeleteExpired(ctx, s.clock.Now(), 1000)
		return err
	})
	return n, err
}
