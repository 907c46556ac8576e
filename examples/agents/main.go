// Command agents gives an AI agent its own principal through the generated Go client: an agent
// is created, a key scoped to what it may do is minted for it (shown once), its spending limits
// are set, and the limits are read back.
//
//	CORRIDOR_URL=http://localhost:8080 CORRIDOR_API_KEY=csk_test_… go run ./examples/agents
package main

import (
	"context"
	"fmt"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/corridorhq/corridor/sdk/go/v2/corridor"
)

func main() {
	api, err := client()
	if err != nil {
		log.Fatal(err)
	}
	if err := run(context.Background(), api); err != nil {
		log.Fatal(err)
	}
}

func run(ctx context.Context, api *corridor.ClientWithResponses) error {
	created, err := api.CreateAgentWithResponse(ctx, &corridor.CreateAgentParams{}, corridor.AgentCreateRequest{Name: "invoice bot"})
	if err != nil || created.JSON201 == nil {
		return fmt.Errorf("create agent: %v %s", err, created.Body)
	}
	agent := created.JSON201
	fmt.Printf("agent %s %q %s\n", agent.Id, agent.Name, agent.Status)

	scopes := []string{"wallets:read", "payments:read", "payments:create"}
	key, err := api.CreateAgentKeyWithResponse(ctx, agent.Id, &corridor.CreateAgentKeyParams{},
		corridor.AgentKeyCreateRequest{Name: "invoice bot key", Scopes: scopes})
	if err != nil || key.JSON201 == nil || key.JSON201.Key == nil {
		return fmt.Errorf("mint key: %v %s", err, key.Body)
	}
	// The plaintext key is shown once: hand it to the agent now; only its prefix is printed here.
	fmt.Printf("key %s for agent %s, scopes %s (plaintext %s…)\n", key.JSON201.Id, *key.JSON201.AgentId,
		strings.Join(key.JSON201.Scopes, " "), (*key.JSON201.Key)[:12])

	perTx, daily, monthly := "25", "100", "1000"
	set, err := api.UpdateAgentLimitsWithResponse(ctx, agent.Id,
		corridor.AgentLimitsRequest{PerTransactionUsd: &perTx, DailyUsd: &daily, MonthlyUsd: &monthly})
	if err != nil || set.JSON200 == nil {
		return fmt.Errorf("set limits: %v %s", err, set.Body)
	}
	read, err := api.GetAgentLimitsWithResponse(ctx, agent.Id)
	if err != nil || read.JSON200 == nil {
		return fmt.Errorf("read limits: %v %s", err, read.Body)
	}
	l := read.JSON200
	fmt.Printf("limits of %s: per transaction %s, daily %s, weekly %s, monthly %s USD\n", agent.Id,
		orNone(l.PerTransactionUsd), orNone(l.DailyUsd), orNone(l.WeeklyUsd), orNone(l.MonthlyUsd))
	return nil
}

// orNone is a limit's amount, or "none" when it is not set.
func orNone(s *string) string {
	if s == nil {
		return "none"
	}
	return *s
}

// client is the generated client for CORRIDOR_URL with CORRIDOR_API_KEY.
func client() (*corridor.ClientWithResponses, error) {
	base, key := os.Getenv("CORRIDOR_URL"), os.Getenv("CORRIDOR_API_KEY")
	if base == "" {
		base = "http://localhost:8080"
	}
	if key == "" {
		return nil, fmt.Errorf("set CORRIDOR_API_KEY to a TEST key")
	}
	return corridor.NewClientWithResponses(base, corridor.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-Service-Api-Key", key)
		return nil
	}))
}
