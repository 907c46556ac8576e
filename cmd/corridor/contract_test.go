package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/corridorhq/corridor/wiring"
)

// TestVersionCmd: corridor version prints the build's version, module and commit.
func TestVersionCmd(t *testing.T) {
	var out bytes.Buffer
	if err := versionCmd(&out); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out.String(), "corridor "+wiring.ReadBuild().String()+"\n") || !strings.Contains(out.String(), "\ncommit ") {
		t.Fatalf("output %q", out.String())
	}
}

// TestOpenAPICmd: corridor openapi prints the whole document with the version asked for, and
// refuses an argument it does not know.
func TestOpenAPICmd(t *testing.T) {
	var out bytes.Buffer
	if err := openapiCmd(&out, []string{"--version", "9.9.9"}); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Info    map[string]any `json:"info"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Info["version"] != "9.9.9" || doc.Paths["/v1/treasury/accounts"] == nil {
		t.Fatalf("openapi %q, info %v, %d paths", doc.OpenAPI, doc.Info, len(doc.Paths))
	}
	if err := openapiCmd(&out, []string{"--yaml"}); err == nil {
		t.Fatal("an unknown argument is accepted")
	}
}

// TestDevCommands_Usage: listen needs --forward-to and trigger exactly one event type, before
// any request is made.
func TestDevCommands_Usage(t *testing.T) {
	var out bytes.Buffer
	if err := listenCmd(t.Context(), &out, []string{"--api-key", "csk_test_x"}); err == nil || !strings.Contains(err.Error(), "--forward-to") {
		t.Fatalf("listen without --forward-to: %v", err)
	}
	if err := triggerCmd(t.Context(), &out, []string{"--api-key", "csk_test_x"}); err == nil || !strings.Contains(err.Error(), "event type") {
		t.Fatalf("trigger without a type: %v", err)
	}
	if err := triggerCmd(t.Context(), &out, []string{"safe_payment.completed"}); err == nil && os.Getenv("CORRIDOR_API_KEY") == "" && os.Getenv("CORRIDOR_SESSION") == "" {
		t.Fatalf("trigger without a credential is accepted")
	}
}
