// Package claims tests pending claims over HTTP: a payment to a number nobody has verified
// opens a claim funded into the claim-escrow contract on the simulated chain; the recipient
// proves the phone through the link and redeems; expiry refunds the sender.
package claims

import (
	"testing"

	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.MainWithChain(m) }

func env() *harness.Env { return harness.Shared() }
