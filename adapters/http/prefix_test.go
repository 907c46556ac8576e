package http

import "testing"

func TestUnderPrefix(t *testing.T) {
	for _, c := range []struct {
		path, prefix string
		want         bool
	}{
		{"/v1/cards", "/v1/cards", true},
		{"/v1/cards/x", "/v1/cards", true},
		{"/v1/cardsx", "/v1/cards", false},
		{"/v1/agents/agt_1/cards", "/v1/agents/*/cards", true},
		{"/v1/agents/agt_1/cards/x", "/v1/agents/*/cards", true},
		{"/v1/agents/agt_1/keys", "/v1/agents/*/cards", false},
		{"/v1/agents/agt_1", "/v1/agents/*/cards", false},
	} {
		if got := underPrefix(c.path, c.prefix); got != c.want {
			t.Errorf("underPrefix(%q, %q) = %v", c.path, c.prefix, got)
		}
	}
}
