package main

import (
	"slices"
	"strings"
	"testing"
)

// TestParseInterspersed: flags are read before, between and after positional arguments, and
// "--" makes the rest positional.
func TestParseInterspersed(t *testing.T) {
	for _, args := range [][]string{
		{"safe_payment.completed", "--api", "http://127.0.0.1:9", "--api-key", "csk_test_x"},
		{"--api", "http://127.0.0.1:9", "safe_payment.completed", "--api-key", "csk_test_x"},
		{"--api=http://127.0.0.1:9", "--api-key", "csk_test_x", "safe_payment.completed"},
	} {
		fs, api, key := devFlags("trigger")
		positional, err := parseInterspersed(fs, args)
		if err != nil || !slices.Equal(positional, []string{"safe_payment.completed"}) || *api != "http://127.0.0.1:9" || *key != "csk_test_x" {
			t.Errorf("%q: positional %q, api %q, key %q, err %v", args, positional, *api, *key, err)
		}
	}
	fs, _, _ := devFlags("trigger")
	if positional, err := parseInterspersed(fs, []string{"a", "--", "--api", "b"}); err != nil || !slices.Equal(positional, []string{"a", "--api", "b"}) {
		t.Errorf("after --: %q, %v", positional, err)
	}
	fs, _, _ = devFlags("trigger")
	if _, err := parseInterspersed(fs, []string{"a", "--no-such-flag"}); err == nil {
		t.Error("an unknown flag after a positional argument is accepted")
	}
}

// TestTrigger_FlagsAfterTheEventType: `corridor trigger EVENT --api URL` reads --api (the
// call goes to that URL and fails to connect) instead of refusing a second event type.
func TestTrigger_FlagsAfterTheEventType(t *testing.T) {
	err := triggerCmd(t.Context(), &strings.Builder{}, []string{"agent.created", "--api", "http://127.0.0.1:1", "--api-key", "csk_test_x"})
	if err == nil || strings.Contains(err.Error(), "name one event type") {
		t.Fatalf("trigger EVENT --api URL: %v", err)
	}
}
