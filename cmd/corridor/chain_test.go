package main

import (
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
)

// TestChainConfig_SecretsNeverFormat: keys and RPC URLs print as [redacted] however they are
// formatted or logged, and key errors never quote the key.
func TestChainConfig_SecretsNeverFormat(t *testing.T) {
	const key = "4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318"
	c, err := loadConfig(map[string]string{
		"CHAIN_RPC_URL": "https://base-sepolia.example/v2/provider-api-key", "RELAYER_PRIVATE_KEY": key,
	})
	if err != nil {
		t.Fatal(err)
	}
	var logged strings.Builder
	slog.New(slog.NewJSONHandler(&logged, nil)).Info("config", "config", c, "key", c.Chain.TestRelayerKey)
	for _, out := range []string{fmt.Sprintf("%v %+v %#v %s", c, c, c, c.Chain.TestRelayerKey), logged.String()} {
		if strings.Contains(out, key) || strings.Contains(out, "provider-api-key") {
			t.Fatalf("a secret leaked: %s", out)
		}
	}
	if _, err := parseKey(secret("zz" + key)); err == nil || strings.Contains(err.Error(), key) {
		t.Fatalf("parseKey error %v", err)
	}
	if _, err := loadConfig(map[string]string{"RELAYER_PRIVATE_KEY": "zz" + key}); err == nil || strings.Contains(err.Error(), key) {
		t.Fatalf("a bad relayer key: %v", err)
	}
	if got := redactURL("https://base-sepolia.example/v2/provider-api-key?x=1"); got != "https://base-sepolia.example" {
		t.Fatalf("redactURL = %q", got)
	}
}

func TestConfiguredAddresses(t *testing.T) {
	canonical, err := configuredAddresses(chainEndpoint{}, 8453)
	if err != nil || canonical.USDC != common.HexToAddress("0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913") {
		t.Fatalf("canonical Base: %+v, %v", canonical, err)
	}
	override, err := configuredAddresses(chainEndpoint{USDC: "0x00000000000000000000000000000000000000aa"}, 84532)
	if err != nil || override.USDC != common.HexToAddress("0xaa") || override.SafeSingleton != canonical.SafeSingleton {
		t.Fatalf("USDC override: %+v, %v", override, err)
	}
	path := filepath.Join(t.TempDir(), "addresses.json")
	body := `{"chainId":84532,"safeSingleton":"0x0000000000000000000000000000000000000001","safeProxyFactory":"0x0000000000000000000000000000000000000002",
		"fallbackHandler":"0x0000000000000000000000000000000000000003","usdc":"0x0000000000000000000000000000000000000004"}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	fromFile, err := configuredAddresses(chainEndpoint{AddressesFile: path}, 84532)
	if err != nil || fromFile.USDC != common.HexToAddress("0x04") || fromFile.SafeProxyFactory != common.HexToAddress("0x02") {
		t.Fatalf("from file: %+v, %v", fromFile, err)
	}
	if _, err := configuredAddresses(chainEndpoint{AddressesFile: path}, 8453); err == nil {
		t.Fatal("an addresses file of another chain was accepted")
	}
}
