package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// maxTxAttempts bounds retries of a unit of work on serialization failure or deadlock.
const maxTxAttempts = 5

// Store is the Bun unit of work.
type Store struct {
	db   *bun.DB
	pipe *pipeline // nil: every unit of work is its own transaction
	// refs are the committed accounts by reference (account_refs.go), shared with the store
	// WithPipeline makes over the same database.
	refs *refCache
	// idleMetrics are the pipeline histograms of a store without a pipeline (never observed).
	idleMetrics *pipelineMetrics
	// citus: the database is a Citus coordinator (ForCitus).
	citus bool
}

var _ ports.Store = (*Store)(nil)

// NewStore wraps an open database.
func NewStore(db *bun.DB) *Store {
	if db == nil {
		panic("postgres: NewStore needs a database")
	}
	return &Store{db: db, refs: newRefCache()}
}

// DB exposes the handle for adapters that need their own queries (the ledger store).
func (s *Store) DB() *bun.DB { return s.db }

// Ping checks the database answers; /readyz uses it.
func (s *Store) Ping(ctx context.Context) error { return s.db.PingContext(ctx) }

type txKey struct{}

// InTx runs fn in a transaction, or in a savepoint when ctx already carries one. With the
// pipeline (WithPipeline) an outermost unit of work runs in a shared batch (pipeline.go),
// unless its context is marked ports.WithUnitAlone. An outermost unit always runs under a
// deadline: the caller's, or DefaultUnitDeadline (deadline.go), recorded as a defect to fix.
func (s *Store) InTx(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	if outer, ok := ctx.Value(txKey{}).(bun.Tx); ok {
		return s.nested(ctx, outer, fn)
	}
	ctx, cancel := withUnitDeadline(ctx)
	defer cancel()
	if s.pipe != nil && !ports.UnitAlone(ctx) && !s.aloneOnCitus(ctx) {
		return s.pipelined(ctx, fn)
	}
	return s.direct(ctx, fn)
}

// pipelined submits fn to the pipeline, retrying it on serialization failure or deadlock.
func (s *Store) pipelined(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	var err error
	for attempt := 1; attempt <= maxTxAttempts; attempt++ {
		err = s.pipe.submit(ctx, fn)
		if !retryable(err) {
			return unavailable(err)
		}
		time.Sleep(time.Duration(attempt*attempt) * 5 * time.Millisecond)
	}
	return err
}

// direct runs fn in its own transaction. The transaction is the unit's own, so statements it
// marks deferrable may wait for the next one (driver.go).
func (s *Store) direct(ctx context.Context, fn func(ctx context.Context, tx ports.Tx) error) error {
	var err error
	for attempt := 1; attempt <= maxTxAttempts; attempt++ {
		var finds *accountFinds
		began := false
		err = s.db.RunInTx(ctx, nil, func(ctx context.Context, btx bun.Tx) error {
			began = true
			ctx, finds = withFinds(ctx, s.refs)
			ctx = context.WithValue(context.WithValue(ctx, txKey{}, btx), ownTxKey{}, true)
			if err := fn(ctx, &tx{db: btx, citus: s.citus}); err != nil || !s.citus {
				return err
			}
			return markTwoPhase(ctx, btx.Tx)
		})
		if err == nil && finds != nil {
			s.refs.publish(finds.list) // committed
		}
		if !began {
			err = poolWaitFailure(s.db.DB, err)
		}
		if !retryable(err) {
			return unavailable(err)
		}
		time.Sleep(time.Duration(attempt*attempt) * 5 * time.Millisecond)
	}
	return err
}

// ownTxKey marks a context whose transaction belongs to one unit of work (not a pipeline batch).
type ownTxKey struct{}

// deferrable reports a unit of work that owns its transaction, or a pipeline batch's unit,
// outside any nested unit or in one whose caller marked the statement its last write
// (ports.WithLastWrite: its failure fails the request whatever unit it runs in): a statement
// it marks deferExec fails the unit's COMMIT if it fails, as the unit would fail. In a batch it
// travels with the next unit's first exchange or with the batch's COMMIT; failing there, it
// leaves the connection unable to roll back to a savepoint (driver.go), so the batch is rolled
// back and every unit of it runs again alone, where the failure is its own unit's. A nested
// unit's statement without the mark is never held back: its failure must reach the nested
// unit's caller, which may roll back to its savepoint and go on.
func deferrable(ctx context.Context) bool {
	owned, _ := ctx.Value(ownTxKey{}).(bool)
	batched := ctx.Value(unitKey{}) != nil
	depth, _ := ctx.Value(depthKey{}).(int)
	return (owned || batched) && (depth == 0 || ports.LastWrite(ctx))
}

// depthKey carries the nesting depth of units of work inside one transaction.
type depthKey struct{}

// nested runs fn in a savepoint of the outer transaction, named by its depth: units of work
// nest strictly, so the newest savepoint of a name is always the running unit's. The SAVEPOINT
// travels with the unit's first statement and its RELEASE with the transaction's next statement
// (driver.go), so neither costs a round trip; a unit that fails before sending any statement
// rolls back nothing.
//
// Inside a pipeline batch the nested unit keeps its batch unit's ledger layer: its transfers
// are decided in memory and written with the batch, as the outer unit's would be, so a use case
// wrapped in the idempotency layer's unit of work pays no locking read for rows the batch holds
// and no write of its own. Should it fail, the layer goes back to where it stood at the
// savepoint (ledgerMark), as the rollback to the savepoint takes its statements, row locks and
// any buffered rows it wrote back.
func (s *Store) nested(ctx context.Context, outer bun.Tx, fn func(ctx context.Context, tx ports.Tx) error) error {
	ul, _ := ctx.Value(unitKey{}).(*unitLedger)
	if ul == nil {
		return s.savepoint(ctx, outer, nil, fn)
	}
	// The unit's turn and its own savepoint come first, as for any statement of the unit.
	ul.m.enterSQL()
	mark := ul.mark()
	err := s.savepoint(ctx, outer, ul, fn)
	if err != nil {
		ul.restore(mark)
	}
	return err
}

// savepoint runs fn in the next savepoint of outer, with unit as its ledger layer (nil: none).
func (s *Store) savepoint(ctx context.Context, outer bun.Tx, unit *unitLedger, fn func(ctx context.Context, tx ports.Tx) error) error {
	depth, _ := ctx.Value(depthKey{}).(int)
	depth++
	name := "corridor_sp_" + strconv.Itoa(depth)
	if _, err := outer.Tx.ExecContext(ctx, "SAVEPOINT "+name, deferExec{}); err != nil {
		return err
	}
	inner, finds := childFinds(ctx)
	if err := fn(context.WithValue(inner, depthKey{}, depth), &tx{db: outer, unit: unit, citus: s.citus}); err != nil {
		_, _ = outer.Tx.ExecContext(context.WithoutCancel(ctx), "ROLLBACK TO SAVEPOINT "+name)
		return err // the accounts it found are forgotten with it
	}
	_, err := outer.Tx.ExecContext(ctx, "RELEASE SAVEPOINT "+name, deferExec{})
	if err == nil {
		findsOf(ctx).keep(finds)
	}
	return err
}

// unavailable reports a statement cancelled by statement_timeout or by the caller's deadline
// (SQLSTATE 57014), and a deadline that passed while waiting for a connection, as
// SERVICE_UNAVAILABLE: the database did not answer in time, and a retry may succeed. A lost
// connection (reset, closed, refused, or a server shutting down or starting) is
// SERVICE_UNAVAILABLE too: the unit either committed with its idempotency record or not at all,
// so a client's retry with the same Idempotency-Key replays it or runs it once.
func unavailable(err error) error {
	if err == nil {
		return nil // every unit that succeeds passes here: errors.As's targets would escape
	}
	var de *core.Error
	if errors.As(err, &de) {
		return err
	}
	var pgErr *pgconn.PgError
	if (errors.As(err, &pgErr) && pgErr.Code == "57014") || errors.Is(err, context.DeadlineExceeded) {
		return errDatabaseSlow
	}
	if connectionLost(err) {
		return fmt.Errorf("%w: %w", core.E(core.CodeServiceUnavailable, "the connection to the database was lost; retry shortly").Transient(core.RetryDatabase), err)
	}
	return err
}

// errDatabaseSlow answers a unit whose statement or commit ran out of time.
var errDatabaseSlow = core.E(core.CodeServiceUnavailable, "the database did not answer in time; retry shortly").Transient(core.RetryDatabase)

// errPoolSaturated answers a unit that ran out of time waiting for a pooled connection while
// every connection of the pool was in use: the pool is saturated (go_sql_in_use_connections at
// DB_MAX_CONNS, go_sql_wait_count_total rising), which an on-call must tell from a slow
// database (docs/runbooks.md, CorridorDatabasePoolSaturated).
var errPoolSaturated = core.E(core.CodeServiceUnavailable,
	"no database connection became free in time (every connection of the service's pool is in use); retry shortly").Transient(core.RetryDatabase)

// poolWaitFailure is unavailable for a unit that never got a connection: beginning its
// transaction failed. When that failure is the deadline and the pool has no free connection,
// it is the pool's saturation (errPoolSaturated), not the database's slowness.
func poolWaitFailure(db *sql.DB, err error) error {
	if err != nil && (errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled)) && poolFull(db) {
		return fmt.Errorf("%w: %w", errPoolSaturated, err)
	}
	return err
}

// poolFull reports a pool whose every connection is in use (or being opened).
func poolFull(db *sql.DB) bool {
	st := db.Stats()
	return st.MaxOpenConnections > 0 && st.InUse >= st.MaxOpenConnections
}

// connectionLost reports an error that says the connection to PostgreSQL failed rather than
// the statement: a network error, an unexpected end of the stream, a connection pgx or
// database/sql already closed, a transaction whose connection closed under it (pgx's
// ErrTxClosed: the store never reuses a finished transaction, so only a lost connection closes
// one), a failed connect, or the server's own shutdown and start-up refusals (SQLSTATE class
// 08, 57P01-57P03).
func connectionLost(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return strings.HasPrefix(pgErr.Code, "08") || pgErr.Code == "57P01" || pgErr.Code == "57P02" || pgErr.Code == "57P03" ||
			citusNodeLost(pgErr)
	}
	var netErr net.Error
	var connectErr *pgconn.ConnectError
	return errors.As(err, &netErr) || errors.As(err, &connectErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, driver.ErrBadConn) || errors.Is(err, sql.ErrConnDone) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, pgconn.ErrConnClosed) || errors.Is(err, pgx.ErrTxClosed)
}

// citusWorkerLost are the messages of libpq's own errors on a lost connection, which a Citus
// coordinator relays from a worker's connection without a SQLSTATE of their own.
var citusWorkerLost = []string{"server closed the connection unexpectedly", "connection not open",
	"could not receive data from server", "could not send data to server", "no connection to the server"}

// citusNodeLost reports a Citus coordinator's error for a worker it lost mid-unit, which Citus
// raises as an internal error (XX000) rather than a connection exception: "failure on
// connection marked as essential" when a connection of the transaction failed, or libpq's
// lost-connection message relayed from the worker's connection (only a relayed connection can
// produce those texts in a server's error, so the message alone tells). The outcome is then
// what it is on a lost connection of the service's own: a retry with the same key replays or
// runs the unit (docs/reliability.md says where a unit spanning the coordinator and a worker
// falls short of that).
func citusNodeLost(pgErr *pgconn.PgError) bool {
	if pgErr.Code != "XX000" {
		return false
	}
	if strings.HasPrefix(pgErr.Message, "failure on connection marked as essential") {
		return true
	}
	for _, m := range citusWorkerLost {
		if strings.Contains(pgErr.Message, m) {
			return true
		}
	}
	return false
}

// retryable reports a serialization failure (40001) or deadlock (40P01).
func retryable(err error) bool {
	if err == nil {
		return false
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code == "40001" || pgErr.Code == "40P01"
	}
	return false
}

// tx implements ports.Tx over one Bun transaction or savepoint.
type tx struct {
	db    bun.IDB
	unit  *unitLedger // the unit's share of a pipeline batch, nil outside the pipeline
	citus bool        // the database is a Citus coordinator: some reads take another shape
}

func (t *tx) Tenants() ports.TenantRepo          { return tenantRepo{t.db} }
func (t *tx) Members() ports.MemberRepo          { return memberRepo{t.db} }
func (t *tx) APIKeys() ports.APIKeyRepo          { return apiKeyRepo{t.db} }
func (t *tx) Idempotency() ports.IdempotencyRepo { return idempotencyRepo{t.db, t.unit} }
func (t *tx) Ledger() ports.LedgerRepo           { return newLedgerRepo(t.db).in(t.unit).onCitus(t.citus) }
func (t *tx) LedgerReports() ports.LedgerReports {
	return newLedgerRepo(t.db).reading(t.unit).onCitus(t.citus)
}
func (t *tx) Wallets() ports.WalletRepo                { return walletRepo{t.db} }
func (t *tx) Payments() ports.PaymentRepo              { return paymentRepo{t.db} }
func (t *tx) PaymentHolds() ports.PaymentHoldRepo      { return paymentHoldRepo{t.db} }
func (t *tx) RelayerBudget() ports.RelayerBudgetRepo   { return relayerBudgetRepo{t.db} }
func (t *tx) Handles() ports.HandleRepo                { return handleRepo{t.db} }
func (t *tx) Drips() ports.DripRepo                    { return dripRepo{t.db} }
func (t *tx) ChainIndex() ports.ChainIndexRepo         { return chainIndexRepo{t.db} }
func (t *tx) Policies() ports.PolicyRepo               { return policyRepo{db: t.db, unit: t.unit} }
func (t *tx) Recipients() ports.RecipientRepo          { return recipientRepo{t.db} }
func (t *tx) Offramp() ports.OfframpRepo               { return offrampRepo{t.db} }
func (t *tx) Claims() ports.ClaimRepo                  { return claimRepo{t.db} }
func (t *tx) Agents() ports.AgentRepo                  { return agentRepo{t.db} }
func (t *tx) Treasury() ports.TreasuryRepo             { return treasuryRepo{t.db} }
func (t *tx) Cards() ports.CardRepo                    { return cardRepo{db: t.db, citus: t.citus, unit: t.unit} }
func (t *tx) Ramps() ports.RampRepo                    { return rampRepo{t.db} }
func (t *tx) TwoFactor() ports.TwoFactorRepo           { return twoFactorRepo{t.db} }
func (t *tx) Invoices() ports.InvoiceRepo              { return invoiceRepo{t.db} }
func (t *tx) Events() ports.EventRepo                  { return eventRepo{t.db} }
func (t *tx) Checkouts() ports.CheckoutRepo            { return checkoutRepo{t.db} }
func (t *tx) WalletActivity() ports.WalletActivityRepo { return walletActivityRepo{t.db, t.citus} }

// TxFromContext returns the Bun transaction a unit of work carries, for adapters (such as the
// ledger store) that must write inside the caller's transaction.
func TxFromContext(ctx context.Context) (bun.Tx, bool) {
	t, ok := ctx.Value(txKey{}).(bun.Tx)
	if ok {
		enterSQLFor(ctx) // inside a batch, statements on it run in the unit's savepoint
	}
	return t, ok
}

// InUnitOfWork reports whether ctx carries an open unit of work's transaction, without the side
// effect TxFromContext has inside a batch (opening the unit's savepoint). The outside-call guard
// asks it (adapters/outside).
func InUnitOfWork(ctx context.Context) bool {
	_, ok := ctx.Value(txKey{}).(bun.Tx)
	return ok
}

// constraintOf names the violated constraint of a unique/check/foreign-key error. On Citus a
// distributed table's rows live in shards whose constraints carry the shard id as a suffix
// ("contacts_address_key_102040"), and the coordinator relays a worker's error with its message
// only, without the constraint field: the name is then read from the message, and the suffix
// cut, so callers compare against the table's own constraint names on PostgreSQL and Citus alike.
func constraintOf(err error) (code, constraint string) {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return "", ""
	}
	name := pgErr.ConstraintName
	if m := constraintInMessage.FindStringSubmatch(pgErr.Message); name == "" && m != nil {
		name = m[1]
	}
	return pgErr.Code, shardSuffix.ReplaceAllString(name, "")
}

// constraintInMessage finds the constraint a violation's message names.
var constraintInMessage = regexp.MustCompile(`constraint "([^"]+)"`)

// shardSuffix is a Citus shard id appended to a name: Citus numbers shards from 102008 up, so
// six digits or more (no constraint of the schema ends so).
var shardSuffix = regexp.MustCompile(`_[0-9]{6,}$`)
