package agents

import "testing"

func TestNew_NamesMissingPorts(t *testing.T) {
	if _, err := New(Deps{}); err == nil || err.Error() != "agents: missing required ports: Store, Wallets" {
		t.Fatalf("New(Deps{}) = %v", err)
	}
}
