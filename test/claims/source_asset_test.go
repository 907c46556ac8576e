package claims

import (
	"strings"
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

// TestOfframp_SourceAssetIsTheChainsUSDC: a sandbox payment names, in sourceAssetId, the USDC
// token the sandbox chain actually serves (the one capabilities lists and the claim escrow
// holds), not a public address of another deployment.
func TestOfframp_SourceAssetIsTheChainsUSDC(t *testing.T) {
	t.Parallel()
	sender := funded(t, "10")
	caps := sender.Root.Get("/v1/capabilities").Expect(t, 200).JSON(t)
	var usdc string
	var chainID float64
	for _, c := range caps["chains"].([]any) {
		chain := c.(map[string]any)
		if chain["environment"] == "TEST" {
			usdc, _ = chain["usdcAddress"].(string)
			chainID, _ = chain["chainId"].(float64)
		}
	}
	if usdc == "" || chainID == 0 {
		t.Fatalf("capabilities list no TEST chain with a USDC address: %v", caps["chains"])
	}
	// An unknown phone: the payment opens a claim whose escrow holds this very token.
	pay := sender.Root.Post("/v1/offramp/payments", map[string]any{"phone": harness.Phone("628"), "amountUsd": "1.00"}).Expect(t, 201).JSON(t)
	want := "eip155:84532/erc20:" + strings.ToLower(usdc)
	if got, _ := pay["sourceAssetId"].(string); !strings.EqualFold(got, want) {
		t.Fatalf("sourceAssetId = %q, want %q (the TEST chain's USDC in capabilities)", got, want)
	}
	if pay["sourceChainKey"] != "eip155:84532" {
		t.Fatalf("sourceChainKey = %v", pay["sourceChainKey"])
	}
}
