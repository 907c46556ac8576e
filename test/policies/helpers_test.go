package policies

import (
	"context"
	"net/http"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
)

const (
	addrA = "0x00000000000000000000000000000000000000Aa"
	addrB = "0x00000000000000000000000000000000000000bB"
)

// doc is a schemaVersion 1 document with the given sections.
func doc(sections map[string]any) map[string]any {
	d := map[string]any{"schemaVersion": 1}
	for k, v := range sections {
		d[k] = v
	}
	return d
}

func createPolicy(t *testing.T, c *harness.Client, name string, document map[string]any) map[string]any {
	t.Helper()
	return c.Post("/v1/policies", map[string]any{"name": name, "document": document}).Expect(t, http.StatusCreated).JSON(t)
}

func del(c *harness.Client, path string) *harness.Response { return c.Do(http.MethodDelete, path, nil) }

// newWallet creates a wallet through the wallets API and waits until it is DEPLOYED.
func newWallet(t *testing.T, ten *harness.Tenant) string {
	t.Helper()
	created := ten.Root.Post("/v1/wallets", map[string]any{"name": "policy subject",
		"owners": []map[string]any{{"address": harness.NewOwner(t).Address.Hex(), "role": "FINANCE_OWNER"}}}).Expect(t, http.StatusCreated).JSON(t)
	id := created["id"].(string)
	ten.Root.WaitWalletDeployed(t, id)
	return id
}

// attach attaches policyID to the wallet and returns the attachment.
func attach(t *testing.T, c *harness.Client, policyID, walletID string) map[string]any {
	t.Helper()
	return c.Post("/v1/policies/"+policyID+"/attachments", map[string]any{"subjectType": "wallet", "subjectId": walletID}).
		Expect(t, http.StatusCreated).JSON(t)
}

// decisionsOf reads the decision logs of a payment (or of every reference when ref is "")
// straight from the store, as an auditor would.
func decisionsOf(t *testing.T, tenantID, policyID, ref string) []policy.Decision {
	t.Helper()
	var out []policy.Decision
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		var err error
		out, _, err = tx.Policies().ListDecisions(ctx, ports.DecisionFilter{TenantID: tenantID, Environment: core.EnvTest,
			PolicyID: policyID, ReferenceID: ref}, ports.Page{Take: 100})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func findDecision(t *testing.T, tenantID, id string) policy.Decision {
	t.Helper()
	var d policy.Decision
	err := env().Service.Store.InTx(context.Background(), func(ctx context.Context, tx ports.Tx) error {
		var err error
		d, err = tx.Policies().FindDecision(ctx, tenantID, core.EnvTest, id)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return d
}
