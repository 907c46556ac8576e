package api

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/corridorhq/corridor/test/harness"
)

func TestIdempotency_ReplayReturnsStoredResponse(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	c := ten.Session.With("Idempotency-Key", "invite-1")
	first := c.Post("/v1/tenants/members", map[string]any{"email": "one@example.com"}).Expect(t, 201)
	if first.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("first response marked as replayed")
	}
	// Same body with other whitespace and key order is the same request.
	second := c.Post("/v1/tenants/members", `{ "email" : "one@example.com" }`).Expect(t, 201)
	if second.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("replay not marked Idempotent-Replayed: true")
	}
	if !sameExceptSecret(t, first, second, "inviteToken") {
		t.Fatalf("replay body differs:\n%s\n%s", first.Body, second.Body)
	}
	if total := ten.Root.Get("/v1/tenants/members").JSON(t)["total"].(float64); total != 1 {
		t.Fatalf("replay created another member: total %v", total)
	}
}

func TestIdempotency_DifferentBodyIsRefused(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	c := ten.Session.With("Idempotency-Key", "invite-2")
	c.Post("/v1/tenants/members", map[string]any{"email": "a@example.com"}).Expect(t, 201)
	c.Post("/v1/tenants/members", map[string]any{"email": "b@example.com"}).ExpectError(t, 422, "IDEMPOTENCY_KEY_REUSED")
	if total := ten.Root.Get("/v1/tenants/members").JSON(t)["total"].(float64); total != 1 {
		t.Fatalf("conflicting retry created a member: total %v", total)
	}
}

// TestIdempotency_ValidationRefusalsAreNotStored: a request refused as 400 changed nothing, so
// it is not stored (as Stripe keeps only requests that began executing): the same key runs the
// request again, and a corrected body under that key is served.
func TestIdempotency_ValidationRefusalsAreNotStored(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	c := ten.Session.With("Idempotency-Key", "bad-1")
	c.Post("/v1/tenants/members", map[string]any{"email": "nope"}).ExpectError(t, 400, "VALIDATION_FAILED")
	again := c.Post("/v1/tenants/members", map[string]any{"email": "nope"})
	again.ExpectError(t, 400, "VALIDATION_FAILED")
	if again.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("a 400 was stored and replayed")
	}
	c.Post("/v1/tenants/members", `{"email": `).ExpectError(t, 400, "VALIDATION_FAILED")
	c.Post("/v1/tenants/members", map[string]any{"email": "fixed@example.com"}).Expect(t, 201)
	replay := c.Post("/v1/tenants/members", map[string]any{"email": "fixed@example.com"}).Expect(t, 201)
	if replay.Header.Get("Idempotent-Replayed") != "true" {
		t.Fatal("the corrected request was not stored")
	}
}

func TestIdempotency_KeysAreScopedPerTenant(t *testing.T) {
	t.Parallel()
	e := env()
	a, b := e.NewTenant(t), e.NewTenant(t)
	a.Session.With("Idempotency-Key", "same").Post("/v1/tenants/members", map[string]any{"email": "x@example.com"}).Expect(t, 201)
	r := b.Session.With("Idempotency-Key", "same").Post("/v1/tenants/members", map[string]any{"email": "x@example.com"}).Expect(t, 201)
	if r.Header.Get("Idempotent-Replayed") != "" {
		t.Fatal("tenant B got tenant A's stored response")
	}
}

func TestIdempotency_BadKeyHeader(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	long := fmt.Sprintf("%0300d", 1)
	m := ten.Session.With("Idempotency-Key", long).Post("/v1/tenants/members", map[string]any{"email": "x@example.com"}).ExpectError(t, 400, "VALIDATION_FAILED")
	if harnessField(m, "Idempotency-Key") == "" {
		t.Fatalf("header not named: %v", m)
	}
}

// TestIdempotency_ParallelDuplicatesCreateOne: 20 identical POSTs with one key create exactly
// one object; the others replay it or are told the first is still in progress.
func TestIdempotency_ParallelDuplicatesCreateOne(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	c := ten.Session.With("Idempotency-Key", "parallel-1")
	var wg sync.WaitGroup
	type result struct {
		status   int
		replayed bool
		code     string
		id       string
	}
	results := make(chan result, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := c.Post("/v1/tenants/members", map[string]any{"email": "p@example.com"})
			m := r.JSON(t)
			id, _ := m["id"].(string)
			code, _ := m["code"].(string)
			results <- result{r.Status, r.Header.Get("Idempotent-Replayed") == "true", code, id}
		}()
	}
	wg.Wait()
	close(results)
	fresh, ids := 0, map[string]bool{}
	for r := range results {
		switch {
		case r.status == 201 && !r.replayed:
			fresh++
			ids[r.id] = true
		case r.status == 201 && r.replayed:
			ids[r.id] = true
		case r.status == 409 && r.code == "IDEMPOTENCY_REQUEST_IN_PROGRESS":
		default:
			t.Fatalf("unexpected outcome %+v", r)
		}
	}
	if fresh != 1 || len(ids) != 1 {
		t.Fatalf("%d fresh creations and %d distinct ids, want 1 and 1", fresh, len(ids))
	}
	if total := ten.Root.Get("/v1/tenants/members").JSON(t)["total"].(float64); total != 1 {
		t.Fatalf("members total %v, want 1", total)
	}
}

// TestIdempotency_InFlightIsConflict holds the key's lock from outside, as an in-flight first
// request would, and sees the duplicate refused with 409.
func TestIdempotency_InFlightIsConflict(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	db, err := sql.Open("pgx", e.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = tx.Rollback() }()
	lockKey := "tenant:" + ten.ID + "|TEST|inflight-1"
	if _, err := tx.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended($1, 2))", lockKey); err != nil {
		t.Fatal(err)
	}
	c := ten.Session.With("Idempotency-Key", "inflight-1")
	c.Post("/v1/tenants/members", map[string]any{"email": "f@example.com"}).ExpectError(t, 409, "IDEMPOTENCY_REQUEST_IN_PROGRESS")
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	c.Post("/v1/tenants/members", map[string]any{"email": "f@example.com"}).Expect(t, 201)
}

// TestIdempotency_AnonymousWritesAreNotStored: a POST without a credential ignores the
// Idempotency-Key: nothing is stored for it, so the retry runs again (and is refused again: an
// invite is accepted only with the invitee's session) and the table never holds anonymous
// callers' rows.
func TestIdempotency_AnonymousWritesAreNotStored(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	token := ten.Session.Post("/v1/tenants/members", map[string]any{"email": "pub@example.com"}).Expect(t, 201).JSON(t)["inviteToken"]
	c := e.Client(t).With("Idempotency-Key", "accept-1")
	body := map[string]any{"token": token, "signerAddress": signer}
	c.Post("/v1/tenants/members/accept", body).ExpectError(t, 401, "UNAUTHENTICATED")
	second := c.Post("/v1/tenants/members/accept", body)
	if second.Header.Get("Idempotent-Replayed") != "" || second.Status != 401 {
		t.Fatalf("an anonymous write was replayed: %d %s", second.Status, second.Body)
	}
	db, err := sql.Open("pgx", e.DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var n int
	if err := db.QueryRowContext(context.Background(), `SELECT count(*) FROM idempotency_keys WHERE key = 'accept-1'`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d idempotency records stored for an anonymous write", n)
	}
}

// TestIdempotency_ConcurrentRetriesOfAFinishedRequestAllReplay: once the outcome is stored,
// parallel retries get it back instead of refusing each other.
func TestIdempotency_ConcurrentRetriesOfAFinishedRequestAllReplay(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	c := ten.Session.With("Idempotency-Key", "done-1")
	first := c.Post("/v1/tenants/members", map[string]any{"email": "d@example.com"}).Expect(t, 201)
	var wg sync.WaitGroup
	for i := 0; i < 16; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := c.Post("/v1/tenants/members", map[string]any{"email": "d@example.com"})
			if r.Status != 201 || r.Header.Get("Idempotent-Replayed") != "true" || !sameExceptSecret(t, first, r, "inviteToken") {
				t.Errorf("retry got %d replayed=%q: %s", r.Status, r.Header.Get("Idempotent-Replayed"), r.Body)
			}
		}()
	}
	wg.Wait()
}

// sameExceptSecret: a replay equals the first response except that the shown-once secret is
// null in it (the secret is never stored).
func sameExceptSecret(t *testing.T, first, replay *harness.Response, secret string) bool {
	t.Helper()
	a, b := first.JSON(t), replay.JSON(t)
	if a[secret] == nil || b[secret] != nil {
		return false
	}
	delete(a, secret)
	delete(b, secret)
	return toJSON(a) == toJSON(b)
}

// TestIdempotency_SecretsAreNeverReplayed: another credential of the tenant reusing a key gets
// 422, not the first response; the key's own retry gets the response without the plaintext,
// and the plaintext is not stored.
func TestIdempotency_SecretsAreNeverReplayed(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	body := map[string]any{"name": "live root", "environment": "live", "scopes": []string{"*"}}
	first := ten.Session.With("Idempotency-Key", "mint-1").Post("/v1/api-keys", body).Expect(t, 201)
	plaintext := first.JSON(t)["key"].(string)

	// Another credential allowed on the route (its scopes are checked before the key's record).
	other := e.Client(t).WithKey(e.NewKey(t, ten.Root, map[string]any{"name": "other", "scopes": []string{"keys:manage"}}))
	other.With("Idempotency-Key", "mint-1").Post("/v1/api-keys", body).ExpectError(t, 422, "IDEMPOTENCY_KEY_REUSED")

	replay := ten.Session.With("Idempotency-Key", "mint-1").Post("/v1/api-keys", body).Expect(t, 201)
	if replay.Header.Get("Idempotent-Replayed") != "true" || !sameExceptSecret(t, first, replay, "key") {
		t.Fatalf("replay: %s", replay.Body)
	}
	var stored int
	db := openDB(t, e.DatabaseURL)
	if err := db.QueryRow(`SELECT count(*) FROM idempotency_keys WHERE position($1 in convert_from(body, 'UTF8')) > 0`,
		strings.Split(plaintext, "_")[3]).Scan(&stored); err != nil {
		t.Fatal(err)
	}
	if stored != 0 {
		t.Fatal("a plaintext key secret is stored in an idempotency record")
	}
}

// TestIdempotency_EmptyBodyIsTheEmptyObject: a body-less POST and the same POST with {} are one
// request, as the decoder reads them: a retry that serializes "no fields" the other way is
// replayed, not refused IDEMPOTENCY_KEY_REUSED, and the revoke runs once.
func TestIdempotency_EmptyBodyIsTheEmptyObject(t *testing.T) {
	t.Parallel()
	e := env()
	ten := e.NewTenant(t)
	key := e.NewKey(t, ten.Root, map[string]any{"name": "to revoke"})
	path := "/v1/api-keys/" + keyID(t, ten, key) + "/revoke"
	c := ten.Root.With("Idempotency-Key", "revoke-once")
	first := c.Post(path, nil).Expect(t, 200)
	for _, retry := range []any{map[string]any{}, " { } "} {
		again := c.Post(path, retry).Expect(t, 200)
		if again.Header.Get("Idempotent-Replayed") != "true" || string(again.Body) != string(first.Body) {
			t.Fatalf("a retry with %q: %s (replayed %q)", retry, again.Body, again.Header.Get("Idempotent-Replayed"))
		}
	}
}
