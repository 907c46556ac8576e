package policies

import (
	"testing"

	"github.com/corridorhq/corridor/ports"
)

// nopStore stands in for the store where a test only builds the service.
type nopStore struct{ ports.Store }

// TestNew_NamesMissingPorts: wiring that forgets a port fails at start-up, naming it.
func TestNew_NamesMissingPorts(t *testing.T) {
	_, err := New(Deps{})
	if want := "policy: missing required ports: Store"; err == nil || err.Error() != want {
		t.Fatalf("New(Deps{}) = %v, want %q", err, want)
	}
}

// TestNew_RefusesUnknownEnforcement: a mistyped POLICY_ENFORCEMENT fails at start-up.
func TestNew_RefusesUnknownEnforcement(t *testing.T) {
	if _, err := New(Deps{Store: nopStore{}, Enforcement: "enforced"}); err == nil {
		t.Fatal("an unknown enforcement mode was accepted")
	}
}
