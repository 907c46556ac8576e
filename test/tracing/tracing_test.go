package tracing

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/crypto"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"

	"github.com/corridorhq/corridor/test/harness"
)

// Caller's trace context, as a partner's own tracing would send it (W3C traceparent).
const (
	callerTraceID = "4bf92f3577b34da6a3ce929d0e0e4736"
	callerSpanID  = "00f067aa0ba902b7"
)

// TestTracing_RequestStatementsJobAndChainCalls creates a wallet: the request's server span
// continues the caller's trace and carries the request id and tenant; its statements are its
// children (its INSERT among them, not under a BEGIN), with the statement's template and never
// its arguments; the deployment job it enqueued continues the same trace under the enqueue's
// span; the job's chain calls and statements are the job's children.
func TestTracing_RequestStatementsJobAndChainCalls(t *testing.T) {
	env := harness.Shared()
	ten := env.NewTenant(t)
	key, err := crypto.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	owner := crypto.PubkeyToAddress(key.PublicKey).Hex()
	resp := ten.Root.With("traceparent", fmt.Sprintf("00-%s-%s-01", callerTraceID, callerSpanID)).Post("/v1/wallets",
		map[string]any{"name": "traced", "owners": []map[string]any{{"address": owner, "role": "FINANCE_OWNER"}}, "threshold": 1}).Expect(t, 201)
	walletID := resp.JSON(t)["id"].(string)
	waitDeployed(t, ten, walletID)

	spans := inTrace(recorder.Ended(), callerTraceID)
	request := only(t, spans, func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "POST /v1/wallets" })
	if request.Parent().SpanID().String() != callerSpanID || request.SpanKind() != trace.SpanKindServer {
		t.Fatalf("the request span does not continue the caller's: parent %s kind %v", request.Parent().SpanID(), request.SpanKind())
	}
	attrs := attributes(request)
	if attrs["corridor.request_id"] != resp.Header.Get("X-Request-Id") || attrs["corridor.tenant_id"] != ten.ID ||
		attrs["http.route"] != "/v1/wallets" || attrs["http.response.status_code"] != "201" {
		t.Fatalf("request span attributes: %v", attrs)
	}
	if children(spans, request, "db INSERT") == 0 {
		t.Fatalf("the unit of work's statements are not children of the request span: %v", names(spans))
	}
	enqueue := only(t, spans, func(s sdktrace.ReadOnlySpan) bool {
		return s.Name() == "river.insert_many" && s.Parent().SpanID() == request.SpanContext().SpanID()
	})
	job := only(t, spans, func(s sdktrace.ReadOnlySpan) bool { return s.Name() == "river.work/wallet.deploy" })
	if job.Parent().SpanID() != enqueue.SpanContext().SpanID() || attributes(job)["kind"] != "wallet.deploy" || job.SpanKind() != trace.SpanKindConsumer {
		t.Fatalf("the deployment job does not continue the request's enqueue: parent %s, attributes %v", job.Parent().SpanID(), attributes(job))
	}
	if children(spans, job, "chain SendTransaction") == 0 || children(spans, job, "db INSERT") == 0 || children(spans, job, "db COMMIT") == 0 {
		t.Fatalf("the job has no chain call or statement children: %v", names(spans))
	}
	for _, s := range spans {
		if st := strings.ToLower(attributes(s)["db.statement"]); strings.HasPrefix(s.Name(), "db ") && strings.Contains(st, strings.ToLower(owner[2:])) {
			t.Fatalf("a statement span carries an argument: %s", st)
		}
	}
}

// waitDeployed waits until the wallet's deployment job has run (the job, not a clock, ends it).
func waitDeployed(t *testing.T, ten *harness.Tenant, id string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if ten.Root.Get("/v1/wallets/"+id).Expect(t, 200).JSON(t)["status"] == "DEPLOYED" {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("wallet %s did not deploy", id)
}

func inTrace(spans []sdktrace.ReadOnlySpan, traceID string) []sdktrace.ReadOnlySpan {
	var out []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if s.SpanContext().TraceID().String() == traceID {
			out = append(out, s)
		}
	}
	return out
}

func only(t *testing.T, spans []sdktrace.ReadOnlySpan, match func(sdktrace.ReadOnlySpan) bool) sdktrace.ReadOnlySpan {
	t.Helper()
	var found []sdktrace.ReadOnlySpan
	for _, s := range spans {
		if match(s) {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d matching spans among %v", len(found), names(spans))
	}
	return found[0]
}

// children counts the spans whose parent is parent and whose name starts with prefix.
func children(spans []sdktrace.ReadOnlySpan, parent sdktrace.ReadOnlySpan, prefix string) int {
	n := 0
	for _, s := range spans {
		if s.Parent().SpanID() == parent.SpanContext().SpanID() && len(s.Name()) >= len(prefix) && s.Name()[:len(prefix)] == prefix {
			n++
		}
	}
	return n
}

func attributes(s sdktrace.ReadOnlySpan) map[string]string {
	out := map[string]string{}
	for _, kv := range s.Attributes() {
		out[string(kv.Key)] = kv.Value.String()
	}
	return out
}

func names(spans []sdktrace.ReadOnlySpan) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name()
	}
	return out
}
