package api

import (
	"encoding/json"
	"strings"
	"sync/atomic"
	"time"

	"github.com/corridorhq/corridor/test/harness"
)

var slugSeq atomic.Int64

// userSeqForSlug gives a slug base unique across test runs on a shared database.
func userSeqForSlug() int64 { return time.Now().UnixNano()/1000 + slugSeq.Add(1) }

var harnessField = harness.Field

type harnessResponse = harness.Response

func toJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// fiberToOpenAPI turns ":id" segments into "{id}".
func fiberToOpenAPI(p string) string {
	parts := strings.Split(p, "/")
	for i, part := range parts {
		if strings.HasPrefix(part, ":") {
			parts[i] = "{" + part[1:] + "}"
		}
	}
	return strings.Join(parts, "/")
}
