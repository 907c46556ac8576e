package main

import (
	"strings"
	"testing"
)

// TestFirstSteps_CommandsSendJSON: the start banner's curl commands send their JSON bodies as
// application/json; without the header the API answers 415 and the printed first step fails.
func TestFirstSteps_CommandsSendJSON(t *testing.T) {
	banner := firstSteps(Config{})
	curls := 0
	for _, line := range strings.Split(banner, "\n") {
		if !strings.Contains(line, "curl ") {
			continue
		}
		curls++
		if strings.Contains(line, " -d ") && !strings.Contains(line, "Content-Type: application/json") {
			t.Errorf("the banner's command sends a body without Content-Type: application/json: %s", strings.TrimSpace(line))
		}
	}
	if curls == 0 {
		t.Fatalf("no curl command in the banner:\n%s", banner)
	}
}
