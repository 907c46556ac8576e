package agents

import "github.com/corridorhq/corridor/ports"

// txView is the part of a unit of work this capability touches: agents and the API keys they hold.
// A reader sees the capability's tables here; test/architecture checks that every repository the
// package asks a transaction for is listed.
type txView interface {
	APIKeys() ports.APIKeyRepo
	Agents() ports.AgentRepo
}

var _ txView = ports.Tx(nil)
