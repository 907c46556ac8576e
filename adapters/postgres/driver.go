package postgres

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"
)

// The connection driver under database/sql: pgx's stdlib driver, with fewer round trips per
// transaction. A round trip costs both sides a system call pair and a wake-up, and on the
// idempotent POST it was most of the processor time (docs/performance.md). Four kinds of statement
// of a transaction need no answer before the next statement goes out, so they wait on the
// connection and travel with the next statement, in one pipelined exchange (one Sync):
//
//   - BEGIN (a transaction with default options): sent with the transaction's first statement,
//     and not at all when the transaction sends none;
//   - a nested unit of work's SAVEPOINT and RELEASE (Store.nested): the SAVEPOINT is sent with
//     the unit's first statement, the RELEASE with the next statement after the unit (neither
//     is sent when the unit sent no statement and queued none); a
//     rollback to a savepoint that was never sent drops it and what follows it instead, and a
//     rollback to a sent one drops whatever waits (it came after the savepoint);
//   - a pipeline batch unit's SAVEPOINT, with the previous unit's RELEASE (pipeline.go): sent
//     with the unit's first statement, so a unit's turn costs no exchange of its own;
//   - a statement the caller marks deferrable (execDeferred: the idempotency record), in a
//     transaction the unit of work owns or as a batch unit's last statement: sent with the next
//     statement (in a batch, the next unit's first), or with COMMIT.
//
// A waiting statement that fails in the exchange carrying it may have come before the
// savepoint a caller then rolls back to (the previous batch unit's record, failing in the
// next unit's exchange): the connection then refuses a rollback to a savepoint until the
// transaction ends, so the failure fails the whole transaction (a batch runs every unit
// again alone, where it is its own unit's), never the unit that happened to carry it.
//
// Errors keep their meaning: the statements of one exchange run in order, the first failure
// ends the exchange and is what the statement that carried it returns (a deferred statement's
// failure surfaces from the next statement or from Commit, which then rolls back), and a
// transaction that fails is rolled back as before. Nothing is acknowledged earlier: COMMIT
// still returns only once PostgreSQL has committed.

// deferExec, as a statement's first argument, lets the driver hold the statement back until
// the next one (only inside a transaction it began lazily; elsewhere it runs at once).
type deferExec struct{}

// withPending, as a query's first argument, lets a query whose columns are plain values (bool,
// integers, floats, text, bytea, timestamps, NULL) carry the statements waiting on the
// connection in its exchange; other queries send them first in an exchange of their own.
type withPending struct{}

type queued struct {
	sql  string
	args []any
}

// lazyConnector opens lazyConns over pgx's stdlib connector.
type lazyConnector struct{ inner driver.Connector }

func (c lazyConnector) Connect(ctx context.Context) (driver.Conn, error) {
	dc, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	sc, ok := dc.(*stdlib.Conn)
	if !ok {
		_ = dc.Close()
		return nil, fmt.Errorf("postgres: unexpected driver connection %T", dc)
	}
	return &lazyConn{Conn: sc}, nil
}

func (c lazyConnector) Driver() driver.Driver { return c.inner.Driver() }

// lazyConn is one pooled connection; database/sql uses it from one goroutine at a time.
type lazyConn struct {
	*stdlib.Conn
	// pending are the statements not sent yet, in order; BEGIN first when the transaction
	// has sent nothing.
	pending []queued
	// lazy is set while a transaction this connection began lazily is open.
	lazy bool
	// broken is set when a waiting statement failed in the exchange that carried it: the
	// failure may come from before the savepoint a caller then rolls back to, and rolling back
	// to it would keep the transaction going without the failed statement. A rollback to a
	// savepoint is refused until the transaction ends.
	broken bool
	// dropped names the savepoint a rollback just dropped unsent: the release that may follow
	// it has nothing to release, and is dropped too.
	dropped string
}

// errBrokenPending refuses a rollback to a savepoint after a waiting statement failed.
var errBrokenPending = errors.New("postgres: a statement sent ahead of this unit failed; the transaction cannot continue")

var (
	_ driver.ConnBeginTx    = (*lazyConn)(nil)
	_ driver.ExecerContext  = (*lazyConn)(nil)
	_ driver.QueryerContext = (*lazyConn)(nil)
)

// BeginTx defers BEGIN of a transaction with default options to its first statement.
func (c *lazyConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.Isolation != 0 || opts.ReadOnly {
		return c.Conn.BeginTx(ctx, opts)
	}
	if c.Conn.Conn().IsClosed() {
		return nil, driver.ErrBadConn
	}
	c.pending = append(c.pending[:0], queued{sql: "begin"})
	c.lazy, c.broken = true, false
	return lazyTx{c: c, ctx: ctx}, nil
}

// ExecContext runs query, after (and with) the statements waiting on the connection.
func (c *lazyConn) ExecContext(ctx context.Context, query string, argsV []driver.NamedValue) (driver.Result, error) {
	deferred := len(argsV) > 0 && isDeferExec(argsV[0].Value)
	if deferred {
		argsV = argsV[1:]
	}
	if c.lazy {
		dropped := c.dropped
		c.dropped = ""
		if dropped != "" && query == "RELEASE SAVEPOINT "+dropped {
			return driver.ResultNoRows, nil
		}
		if deferred && c.releasesEmpty(query) {
			return driver.ResultNoRows, nil
		}
		if deferred {
			c.pending = append(c.pending, queued{sql: query, args: namedArgs(argsV)})
			return driver.ResultNoRows, nil
		}
		if name, ok := strings.CutPrefix(query, "ROLLBACK TO SAVEPOINT "); ok {
			if c.broken {
				return nil, errBrokenPending
			}
			if c.dropSavepoint(name) {
				c.dropped = name
				return driver.RowsAffected(0), nil
			}
			// The savepoint was sent, so everything still waiting was queued after it and is
			// undone by the rollback: it is dropped unsent (a waiting RELEASE would fail in a
			// failed transaction and take the rollback down with it).
			c.pending = nil
		}
	}
	if len(c.pending) == 0 {
		return c.Conn.ExecContext(ctx, query, argsV)
	}
	return c.sendWithPending(ctx, query, namedArgs(argsV))
}

// releasesEmpty drops the release of a savepoint that is still the last statement waiting,
// and the savepoint with it: nothing was sent or queued after it, so it encloses nothing and
// the pair would only cost PostgreSQL two statements (a use case's nested unit of work whose
// reads and transfers a pipeline batch answered from memory).
func (c *lazyConn) releasesEmpty(query string) bool {
	name, ok := strings.CutPrefix(query, "RELEASE SAVEPOINT ")
	n := len(c.pending)
	if !ok || n == 0 || len(c.pending[n-1].args) > 0 || c.pending[n-1].sql != "SAVEPOINT "+name {
		return false
	}
	c.pending = c.pending[:n-1]
	return true
}

// dropSavepoint handles a rollback to a savepoint still waiting on the connection: nothing
// after it was sent, so the savepoint and what follows it are dropped unsent.
func (c *lazyConn) dropSavepoint(name string) bool {
	for i := len(c.pending) - 1; i >= 0; i-- {
		if len(c.pending[i].args) == 0 && c.pending[i].sql == "SAVEPOINT "+name {
			c.pending = c.pending[:i]
			return true
		}
	}
	return false
}

// sendWithPending sends the waiting statements and query in one exchange and returns query's
// result; the first error ends it.
func (c *lazyConn) sendWithPending(ctx context.Context, query string, args []any) (driver.Result, error) {
	pending := c.takePending()
	pc := c.Conn.Conn()
	if len(args) == 0 && allPlain(pending) {
		// One simple-protocol message, as a statement without arguments is sent anyway.
		var sb strings.Builder
		for _, q := range pending {
			sb.WriteString(q.sql)
			sb.WriteString(";\n")
		}
		sb.WriteString(query)
		tag, err := pc.Exec(ctx, sb.String())
		return driver.RowsAffected(tag.RowsAffected()), err
	}
	b := &pgx.Batch{}
	for _, q := range pending {
		b.Queue(q.sql, q.args...)
	}
	b.Queue(query, args...)
	br := pc.SendBatch(ctx, b)
	err := c.execPending(br, len(pending))
	tag, qerr := br.Exec()
	if cerr := br.Close(); err == nil {
		err = firstError(qerr, cerr)
	}
	return driver.RowsAffected(tag.RowsAffected()), err
}

// flush sends the waiting statements alone.
func (c *lazyConn) flush(ctx context.Context) error {
	pending := c.takePending()
	if len(pending) == 0 {
		return nil
	}
	pc := c.Conn.Conn()
	if allPlain(pending) {
		parts := make([]string, len(pending))
		for i, q := range pending {
			parts[i] = q.sql
		}
		_, err := pc.Exec(ctx, strings.Join(parts, ";\n"))
		c.broken = c.broken || err != nil
		return err
	}
	b := &pgx.Batch{}
	for _, q := range pending {
		b.Queue(q.sql, q.args...)
	}
	br := pc.SendBatch(ctx, b)
	err := c.execPending(br, len(pending))
	return firstError(err, br.Close())
}

func (c *lazyConn) takePending() []queued {
	p := c.pending
	c.pending = nil
	return p
}

// QueryContext runs query; a query marked withPending carries the waiting statements in its
// exchange, any other sends them first.
func (c *lazyConn) QueryContext(ctx context.Context, query string, argsV []driver.NamedValue) (driver.Rows, error) {
	c.dropped = ""
	carry := len(argsV) > 0 && isWithPending(argsV[0].Value)
	if carry {
		argsV = argsV[1:]
	}
	if len(c.pending) == 0 {
		return c.Conn.QueryContext(ctx, query, argsV)
	}
	if !carry {
		if err := c.flush(ctx); err != nil {
			return nil, err
		}
		return c.Conn.QueryContext(ctx, query, argsV)
	}
	pending := c.takePending()
	b := &pgx.Batch{}
	for _, q := range pending {
		b.Queue(q.sql, q.args...)
	}
	b.Queue(query, namedArgs(argsV)...)
	br := c.Conn.Conn().SendBatch(ctx, b)
	if err := c.execPending(br, len(pending)); err != nil {
		_ = br.Close()
		return nil, err
	}
	rows, err := br.Query()
	if err != nil {
		rows.Close()
		_ = br.Close()
		return nil, err
	}
	more := rows.Next()
	if err := rows.Err(); err != nil {
		rows.Close()
		_ = br.Close()
		return nil, err
	}
	return &plainRows{rows: rows, br: br, first: true, more: more}, nil
}

// PrepareContext sends the waiting statements first.
func (c *lazyConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	if err := c.flush(ctx); err != nil {
		return nil, err
	}
	return c.Conn.PrepareContext(ctx, query)
}

// ResetSession forgets anything a finished transaction left waiting (it cannot: Commit and
// Rollback take it) and resets the connection as stdlib does.
func (c *lazyConn) ResetSession(ctx context.Context) error {
	c.pending, c.lazy, c.broken = nil, false, false
	return c.Conn.ResetSession(ctx)
}

// lazyTx is a transaction whose BEGIN may not have been sent yet. Its Commit and Rollback run
// under the context it began with, as stdlib's do.
type lazyTx struct {
	c   *lazyConn
	ctx context.Context
}

// unsent reports pending statements that begin with a BEGIN not sent yet.
func unsent(pending []queued) bool {
	return len(pending) > 0 && pending[0].sql == "begin" && len(pending[0].args) == 0
}

// Commit sends the waiting statements with COMMIT, or nothing when the transaction never sent
// a statement. A COMMIT that PostgreSQL turns into a rollback (the transaction had failed) is
// an error, as pgx reports it; a failed exchange rolls the transaction back.
func (t lazyTx) Commit() error {
	c := t.c
	c.lazy, c.broken = false, false
	pending := c.takePending()
	if unsent(pending) && len(pending) == 1 {
		return nil // nothing was sent: nothing to commit
	}
	pc := c.Conn.Conn()
	if pc.IsClosed() {
		return pgx.ErrTxClosed
	}
	var tagOK bool
	var err error
	if allPlain(pending) {
		parts := make([]string, 0, len(pending)+1)
		for _, q := range pending {
			parts = append(parts, q.sql)
		}
		tag, xerr := pc.Exec(t.ctx, strings.Join(append(parts, "commit"), ";\n"))
		err, tagOK = xerr, tag.String() == "COMMIT"
	} else {
		b := &pgx.Batch{}
		for _, q := range pending {
			b.Queue(q.sql, q.args...)
		}
		b.Queue("commit")
		br := pc.SendBatch(t.ctx, b)
		err = execAll(br, len(pending))
		tag, cerr := br.Exec()
		err = firstError(err, cerr, br.Close())
		tagOK = tag.String() == "COMMIT"
	}
	if err == nil && !tagOK {
		err = pgx.ErrTxCommitRollback
	}
	if err != nil && !pc.IsClosed() && pc.PgConn().TxStatus() != 'I' {
		_, _ = pc.Exec(t.ctx, "rollback")
	}
	return err
}

// Rollback drops the waiting statements and rolls back what was sent.
func (t lazyTx) Rollback() error {
	c := t.c
	c.lazy, c.broken = false, false
	if unsent(c.takePending()) {
		return nil // nothing was sent
	}
	pc := c.Conn.Conn()
	if pc.IsClosed() {
		return pgx.ErrTxClosed
	}
	_, err := pc.Exec(t.ctx, "rollback")
	return err
}

// plainRows reads a batch's last result as database/sql rows of plain values.
type plainRows struct {
	rows        pgx.Rows
	br          pgx.BatchResults
	first, more bool
	closed      bool
}

func (r *plainRows) Columns() []string {
	fds := r.rows.FieldDescriptions()
	names := make([]string, len(fds))
	for i, fd := range fds {
		names[i] = fd.Name
	}
	return names
}

func (r *plainRows) Close() error {
	if r.closed {
		return nil
	}
	r.closed = true
	r.rows.Close()
	return firstError(r.rows.Err(), r.br.Close())
}

func (r *plainRows) Next(dest []driver.Value) error {
	if r.first {
		r.first = false
		if !r.more {
			return io.EOF
		}
	} else if !r.rows.Next() {
		if err := r.rows.Err(); err != nil {
			return err
		}
		return io.EOF
	}
	values, err := r.rows.Values()
	if err != nil {
		return err
	}
	for i, v := range values {
		if dest[i], err = plainValue(v); err != nil {
			return fmt.Errorf("column %d: %w", i, err)
		}
	}
	return nil
}

// plainValue converts a decoded column to a driver.Value.
func plainValue(v any) (driver.Value, error) {
	switch x := v.(type) {
	case nil, bool, int64, float64, string, []byte, time.Time:
		return x, nil
	case int16:
		return int64(x), nil
	case int32:
		return int64(x), nil
	case float32:
		return float64(x), nil
	}
	return nil, fmt.Errorf("postgres: a query carrying pending statements returned a %T", v)
}

// execPending reads the results of the n waiting statements an exchange carried ahead of its
// own statement, and marks the connection broken when one failed.
func (c *lazyConn) execPending(br pgx.BatchResults, n int) error {
	err := execAll(br, n)
	c.broken = c.broken || err != nil
	return err
}

func execAll(br pgx.BatchResults, n int) error {
	var first error
	for range n {
		if _, err := br.Exec(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func firstError(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func allPlain(qs []queued) bool {
	for _, q := range qs {
		if len(q.args) > 0 {
			return false
		}
	}
	return true
}

func namedArgs(argsV []driver.NamedValue) []any {
	if len(argsV) == 0 {
		return nil
	}
	args := make([]any, len(argsV))
	for i, v := range argsV {
		args[i] = v.Value
	}
	return args
}

func isDeferExec(v any) bool   { _, ok := v.(deferExec); return ok }
func isWithPending(v any) bool { _, ok := v.(withPending); return ok }
