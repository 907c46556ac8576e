package architecture

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// notBlackBox are the folders under test/ that hold tooling, not black-box tests.
var notBlackBox = map[string]bool{"architecture": true, "harness": true, "testdb": true}

// bypass matches the ways a test could reach the service without the harness client, whose
// responses are the only ones checked against the OpenAPI document.
var bypass = regexp.MustCompile(`http\.(NewRequest|NewRequestWithContext|Get|Post|PostForm|Head|DefaultClient|DefaultTransport)\b|http\.Client\{|httptest\.|\.Fiber\(\)\.Test\(|net\.Dial|fasthttp\.`)

// TestBlackBox_EveryPackageUsesTheValidatingHarness: every black-box package starts its service
// through the harness, and no test sends a request around the harness client, so every
// response a black-box test sees is checked against the OpenAPI document.
func TestBlackBox_EveryPackageUsesTheValidatingHarness(t *testing.T) {
	root := filepath.Join("..")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	packages := 0
	for _, entry := range entries {
		if !entry.IsDir() || notBlackBox[entry.Name()] {
			continue
		}
		packages++
		dir := filepath.Join(root, entry.Name())
		files, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
		if err != nil {
			t.Fatal(err)
		}
		startsHarness := false
		for _, file := range files {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			src := string(raw)
			if strings.Contains(src, "harness.Main(m)") || strings.Contains(src, "harness.MainWithChain(m)") ||
				strings.Contains(src, "harness.MainWithChainConfig(m,") ||
				strings.Contains(src, "harness.MainWithOptions(m,") || strings.Contains(src, "harness.MainForBinary(m)") ||
				strings.Contains(src, "harness.MainForBinaryThen(m,") {
				startsHarness = true
			}
			for i, line := range strings.Split(src, "\n") {
				if bypass.MatchString(line) {
					t.Errorf("%s:%d reaches the service around the validating harness client: %s", file, i+1, strings.TrimSpace(line))
				}
			}
		}
		if !startsHarness {
			t.Errorf("test/%s does not start its service with harness.Main, MainWithChain, MainWithChainConfig, MainWithOptions, MainForBinary or MainForBinaryThen", entry.Name())
		}
	}
	if packages < 9 {
		t.Fatalf("found only %d black-box packages: is the test looking at the right tree?", packages)
	}
}

func TestBlackBox_BypassPatternCatchesRawClients(t *testing.T) {
	for line, want := range map[string]bool{
		`resp, _ := http.Get(e.BaseURL + "/healthz")`:                  true,
		`req, _ := http.NewRequest("GET", url, nil)`:                   true,
		`c := &http.Client{Timeout: time.Second}`:                      true,
		`resp, _ := e.Service.Server.Fiber().Test(req)`:                true,
		`rec := httptest.NewRecorder()`:                                true,
		`ten.Root.Get("/v1/wallets").Expect(t, http.StatusOK)`:         false,
		`for _, r := range e.Service.Server.Fiber().GetRoutes(true) {`: false,
	} {
		if got := bypass.MatchString(line); got != want {
			t.Errorf("bypass(%q) = %v, want %v", line, got, want)
		}
	}
}
