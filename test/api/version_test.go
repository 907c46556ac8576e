package api

import (
	"testing"
)

// TestVersion_CapabilitiesReportTheBuild: GET /v1/capabilities names the build that answers,
// and the served OpenAPI document's info.version is that same version.
func TestVersion_CapabilitiesReportTheBuild(t *testing.T) {
	t.Parallel()
	c := env().Client(t)
	build, _ := c.Get("/v1/capabilities").Expect(t, 200).JSON(t)["build"].(map[string]any)
	version, _ := build["version"].(string)
	if version == "" {
		t.Fatalf("capabilities build %v has no version", build)
	}
	if _, ok := build["commit"]; !ok {
		t.Fatalf("capabilities build %v has no commit (null when unknown)", build)
	}
	info, _ := c.Get("/v1/openapi.json").Expect(t, 200).JSON(t)["info"].(map[string]any)
	if info["version"] != version {
		t.Fatalf("info.version %v, capabilities build.version %q", info["version"], version)
	}
}
