package cards

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/corridorhq/corridor/test/harness"
)

// issuerStatusJobs lists the states of a card's card.issuer_status outbox jobs, oldest first.
func issuerStatusJobs(t *testing.T, conn *pgx.Conn, cardID string) []string {
	t.Helper()
	rows, err := conn.Query(context.Background(), `SELECT state::text FROM river_job
		WHERE kind = 'card.issuer_status' AND args->>'cardId' = $1 ORDER BY id`, cardID)
	if err != nil {
		t.Fatal(err)
	}
	states, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return states
}

// TestCards_FreezeTellsTheIssuerAfterCommit: a freeze that changes the card writes one outbox
// job in its own commit (present as soon as the answer is), a freeze of a frozen card writes
// none, an unfreeze writes another, and the jobs run to completion (the issuer is told after
// commit, never under the card's row lock).
func TestCards_FreezeTellsTheIssuerAfterCommit(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	w := newWallet(t, ten.ID, true, 20)
	id := issue(t, ten.Root, w, nil)["cardId"].(string)
	conn, err := pgx.Connect(context.Background(), env().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if jobs := issuerStatusJobs(t, conn, id); len(jobs) != 0 {
		t.Fatalf("issuing queued issuer status jobs: %v", jobs)
	}
	ten.Root.Post("/v1/cards/"+id+"/freeze", nil).Expect(t, 200)
	if jobs := issuerStatusJobs(t, conn, id); len(jobs) != 1 {
		t.Fatalf("after a freeze: %v, want one job committed with it", jobs)
	}
	ten.Root.Post("/v1/cards/"+id+"/freeze", nil).Expect(t, 200)
	if jobs := issuerStatusJobs(t, conn, id); len(jobs) != 1 {
		t.Fatalf("a freeze of a frozen card queued a job: %v", jobs)
	}
	ten.Root.Post("/v1/cards/"+id+"/unfreeze", nil).Expect(t, 200)
	harness.Poll(t, "the issuer status jobs completed", func() map[string]any {
		return map[string]any{"states": issuerStatusJobs(t, conn, id)}
	}, func(m map[string]any) bool {
		states := m["states"].([]string)
		return len(states) == 2 && states[0] == "completed" && states[1] == "completed"
	})
}
