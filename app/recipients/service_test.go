package recipients

import "testing"

// TestNew_NamesMissingPorts: wiring that forgets a port fails at start-up, naming it.
func TestNew_NamesMissingPorts(t *testing.T) {
	_, err := New(Deps{})
	if want := "recipients: missing required ports: Store, Jobs, Changed"; err == nil || err.Error() != want {
		t.Fatalf("New(Deps{}) = %v, want %q", err, want)
	}
}
