package requestlogs

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/requestlog"
	"github.com/corridorhq/corridor/ports"
)

// Recorder bounds of the request path's hand-off.
const (
	// FlushInterval is the longest an entry waits in memory before its batch is written: the
	// most a crash (SIGKILL, a lost machine) loses of a healthy service's log.
	FlushInterval = 500 * time.Millisecond
	// maxBatch is the most entries one INSERT writes.
	maxBatch = 500
	// maxPending is the most entries kept in memory, waiting or unwritten while the database
	// refuses them; past it a request's entry is dropped (and counted), never waited for.
	maxPending = 10000
	// closeTimeout bounds the last flush at shutdown.
	closeTimeout = 5 * time.Second
)

// Recorder takes finished requests from the HTTP layer and writes them in batches off the
// request path: Record never blocks and never fails a request. Entries wait at most
// FlushInterval in memory; a graceful stop writes what is left. A database that refuses a
// batch keeps it for the next flush while memory allows (maxPending), then drops the newest.
type Recorder struct {
	logs    ports.RequestLogs
	log     *slog.Logger
	in      chan requestlog.Entry
	stop    chan struct{}
	done    chan struct{}
	once    sync.Once
	dropped atomic.Int64
	written atomic.Int64
}

// NewRecorder starts a recorder writing to logs; Close stops it.
func NewRecorder(logs ports.RequestLogs, log *slog.Logger) (*Recorder, error) {
	if logs == nil || log == nil {
		return nil, errors.New("requestlogs: the recorder needs the log store and a logger")
	}
	r := &Recorder{logs: logs, log: log, in: make(chan requestlog.Entry, maxPending),
		stop: make(chan struct{}), done: make(chan struct{})}
	go r.run()
	return r, nil
}

// Record hands one finished request over. It gives the entry its id; it drops the entry when
// the buffer is full rather than slow the request.
func (r *Recorder) Record(e requestlog.Entry) {
	if e.TenantID == "" {
		return
	}
	e.ID = core.NewID(requestlog.Prefix)
	select {
	case r.in <- e:
	default:
		r.dropped.Add(1)
	}
}

// Dropped is how many entries were lost to a full buffer or a failing database since start.
func (r *Recorder) Dropped() int64 { return r.dropped.Load() }

// Written is how many entries were written since start.
func (r *Recorder) Written() int64 { return r.written.Load() }

// Close writes what is waiting (bounded by closeTimeout) and stops the recorder.
func (r *Recorder) Close() {
	r.once.Do(func() { close(r.stop) })
	<-r.done
}

func (r *Recorder) run() {
	defer close(r.done)
	tick := time.NewTicker(FlushInterval)
	defer tick.Stop()
	var pending []requestlog.Entry
	for {
		select {
		case e := <-r.in:
			pending = append(pending, e)
			if len(pending) >= maxBatch {
				pending = r.flush(context.Background(), pending)
			}
		case <-tick.C:
			pending = r.flush(context.Background(), pending)
		case <-r.stop:
			ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
			defer cancel()
			for drained := false; !drained; {
				select {
				case e := <-r.in:
					pending = append(pending, e)
				default:
					drained = true
				}
			}
			if left := r.flush(ctx, pending); len(left) > 0 {
				r.dropped.Add(int64(len(left)))
				r.log.Warn("request log: entries not written at shutdown", "entries", len(left))
			}
			return
		}
	}
}

// flush writes pending in batches and returns what could not be written, trimmed to
// maxPending (the newest beyond it dropped).
func (r *Recorder) flush(ctx context.Context, pending []requestlog.Entry) []requestlog.Entry {
	for len(pending) > 0 {
		n := min(len(pending), maxBatch)
		if err := r.logs.AppendRequestLogs(ctx, pending[:n]); err != nil {
			r.log.Warn("request log: batch not written, kept for the next flush", "entries", len(pending), "error", err)
			if len(pending) > maxPending {
				r.dropped.Add(int64(len(pending) - maxPending))
				pending = pending[:maxPending]
			}
			return pending
		}
		r.written.Add(int64(n))
		pending = pending[n:]
	}
	return nil
}
