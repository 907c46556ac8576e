package api

import (
	"sync/atomic"
	"time"

	"corridor/test/harness"
)

var slugSeq atomic.Int64

// userSeqForSlug gives a slug base unique across test runs on a shared database.
func userSeqForSlug() int64 { return time.Now().UnixNano()/1000 + slugSeq.Add(1) }

var harnessField = harness.Field
