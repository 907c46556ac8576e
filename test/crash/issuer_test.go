package crash

import (
	"testing"

	"github.com/corridorhq/corridor/app/kernel"
)

// TestCrash_IssuerStatusSentBeforeItsJobCompleted: the service is killed right after the card
// issuer took a frozen card's status and before the outbox job completed. Started again, the
// job runs again and completes: the issuer is told the card's status as the card row has it
// now (the job carries no status of its own), so telling it twice is harmless, and the card
// stays frozen. The sandbox issuer lives in the process, so what it holds is not read across
// the restart: the test asserts the job's outcome and the card.
func TestCrash_IssuerStatusSentBeforeItsJobCompleted(t *testing.T) {
	chaosOnly(t)
	t.Parallel()
	// Cards are served where a chain is: the test's node serves it.
	c, first := newChainCrash(t, kernel.CrashCardIssuerStatusSent)
	ten := c.env.NewTenant(t)
	h := ten.Root.Post("/v1/cardholders", map[string]any{"name": "Ana Lima", "email": "ana@example.com"}).Expect(t, 201).JSON(t)
	card := ten.Root.Post("/v1/cards", map[string]any{"cardholderId": h["cardholderId"], "chain": "base",
		"cryptoAccountAddress": "0x00000000000000000000000000000000000000aA"}).Expect(t, 201).JSON(t)["cardId"].(string)
	go ten.Root.PostIgnoringAnswer("/v1/cards/"+card+"/freeze", `{}`)

	first.waitKilled(t)
	conn := c.conn
	jobs := `SELECT count(*) FROM river_job WHERE kind = 'card.issuer_status' AND args->>'cardId' = $1`
	if n := count(t, conn, jobs, card); n != 1 {
		t.Fatalf("%d issuer status jobs at the crash, want the freeze's 1", n)
	}

	c.restart(t)
	afterRestart(t, "the issuer status job completes after the restart", func() map[string]any {
		return map[string]any{"state": text(t, conn, `SELECT state::text FROM river_job WHERE kind = 'card.issuer_status' AND args->>'cardId' = $1`, card)}
	}, func(m map[string]any) bool { return m["state"] == "completed" })
	if n := count(t, conn, jobs, card); n != 1 {
		t.Fatalf("%d issuer status jobs after the restart, want 1", n)
	}
	if got := ten.Root.Get("/v1/cards/"+card).Expect(t, 200).JSON(t); got["status"] != "inactive" {
		t.Fatalf("the card after the restart: %v", got)
	}
	c.check(t)
}
