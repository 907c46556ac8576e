package postgres

import (
	"context"
	"time"

	"github.com/corridorhq/corridor/ports"
)

// Idempotency records written with the batch. Inside a pipeline batch, the record a request's
// unit saves as its last step (kernel.Idempotent) is not sent as a statement of its own: it is
// kept in the unit's ledger layer, handed to the batch when the unit ends well (dropped with
// the rest of the unit when it fails), and the batch inserts every record it holds in one
// statement that travels with its ledger write and its COMMIT. A deposit then sends one
// statement of its own (the claim) instead of two, and the lane's next unit no longer carries
// the previous unit's insert in its exchange.
//
// What keeps it right:
//   - The record and the effect still commit together: both are in the batch's transaction,
//     written before its COMMIT; a unit is answered only once that COMMIT returned.
//   - A twin in the same batch sees the record: the repository's Claim and Find look in the
//     batch's records (and the unit's own) before asking the database, in the unit's turn,
//     so every unit before it has ended. The database would not have the row yet; the key's
//     advisory lock is the batch's own, so without this the twin would take the key again.
//     Only those two read the table inside a batch; a raw SQL read of idempotency_keys in a
//     later unit of the batch does not see the held records.
//   - A record that fails (a constraint) fails the batch's write, so PostgreSQL refuses the
//     COMMIT and every unit runs again alone, where the failure is its own unit's
//     (TestPipeline_HeldBackRecordFailureIsItsUnits).
//   - Two records of one key in a batch are one: as the single insert's ON CONFLICT would
//     decide, a live record stays and a later one for the same key is dropped, unless the
//     held one has expired by the later one's creation, which then replaces it.
//
// On Citus records are saved as before (a batch holds one tenant there, and what the
// coordinator runs is left unchanged).

// recordKey names a record: its table's primary key.
type recordKey struct{ scope, environment, key string }

func keyOf(rec ports.IdempotencyRecord) recordKey {
	return recordKey{rec.Scope, string(rec.Environment), rec.Key}
}

// holdRecord keeps rec for the batch's write, as ON CONFLICT would settle a second record of
// one key (above). It is false when u cannot hold records (on Citus).
func (u *unitLedger) holdRecord(rec ports.IdempotencyRecord) bool {
	if u.m.b.p.citus {
		return false
	}
	if rec.Body == nil {
		rec.Body = []byte{} // NOT NULL: an empty body is stored as empty, not absent
	}
	k := keyOf(rec)
	for i, held := range u.records {
		if keyOf(held) == k {
			if held.ExpiresAt.After(rec.CreatedAt) {
				return true
			}
			u.records[i] = rec
			return true
		}
	}
	if held, ok := u.heldRecord(k, rec.CreatedAt); ok && held.ExpiresAt.After(rec.CreatedAt) {
		return true
	}
	u.records = append(u.records, rec)
	return true
}

// heldRecord is the live record of k held by the unit or by the units of its batch that ended
// before it (the newest holder first).
func (u *unitLedger) heldRecord(k recordKey, now time.Time) (ports.IdempotencyRecord, bool) {
	for _, list := range [][]ports.IdempotencyRecord{u.records, u.batch.records} {
		for i := len(list) - 1; i >= 0; i-- {
			if rec := list[i]; keyOf(rec) == k && rec.ExpiresAt.After(now) {
				return rec, true
			}
		}
	}
	return ports.IdempotencyRecord{}, false
}

// recordInTurn waits for the unit's turn (every unit before it has ended and handed over its
// records) and reports the live record of the key it holds, if any. Outside a batch it is false.
func recordInTurn(u *unitLedger, scope, env, key string, now time.Time) (ports.IdempotencyRecord, bool) {
	if u == nil {
		return ports.IdempotencyRecord{}, false
	}
	u.m.enterSQL()
	return u.heldRecord(recordKey{scope, env, key}, now)
}

// saveRecordsSQL inserts a batch's records, each as saveIdempotencySQL would.
const saveRecordsSQL = `INSERT INTO idempotency_keys
    (tenant_id, scope, environment, key, fingerprint, status_code, body, content_type, created_at, expires_at)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::int4[], $7::bytea[], $8::text[],
    $9::timestamptz[], $10::timestamptz[])
ON CONFLICT (tenant_id, scope, environment, key) DO UPDATE SET
    fingerprint = EXCLUDED.fingerprint, status_code = EXCLUDED.status_code, body = EXCLUDED.body,
    content_type = EXCLUDED.content_type, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
WHERE idempotency_keys.expires_at <= EXCLUDED.created_at`

// writeRecords inserts recs in one statement that waits on the connection and travels with the
// batch's COMMIT (driver.go); nothing when recs is empty.
func writeRecords(ctx context.Context, q txQuerier, recs []ports.IdempotencyRecord) error {
	if len(recs) == 0 {
		return nil
	}
	n := len(recs)
	tenants, scopes, envs, keys, prints, ctypes := make([]string, n), make([]string, n), make([]string, n), make([]string, n),
		make([]string, n), make([]string, n)
	statuses := make([]int32, n)
	bodies := make([][]byte, n)
	created, expires := make([]time.Time, n), make([]time.Time, n)
	for i, r := range recs {
		tenants[i], scopes[i], envs[i], keys[i], prints[i] = scopeTenant(r.Scope), r.Scope, string(r.Environment), r.Key, r.Fingerprint
		statuses[i], bodies[i], ctypes[i], created[i], expires[i] = int32(r.StatusCode), r.Body, r.ContentType, r.CreatedAt, r.ExpiresAt //nolint:gosec // HTTP status codes
	}
	_, err := q.ExecContext(ctx, saveRecordsSQL, deferExec{}, tenants, scopes, envs, keys, prints, statuses, bodies, ctypes,
		created, expires)
	return err
}
