package fake_test

import (
	"testing"

	"github.com/corridorhq/corridor/core"

	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/ports/fake"
	"github.com/corridorhq/corridor/ports/portstest"
)

// The fakes meet the same contracts as the adapters they stand in for (adapters/postgres and
// adapters/chain run these suites against the real ones).

// TestRepositories runs every repository's suite (the ledger's among them) against one store.
func TestRepositories(t *testing.T) { portstest.RunRepositories(t, fake.NewStore()) }

func TestPayoutProvider(t *testing.T) {
	portstest.PayoutProvider(t, func(*testing.T) ports.PayoutProvider { return fake.NewPayout("fake_rail") })
}

func TestSMS(t *testing.T) {
	portstest.SMS(t, func(*testing.T) portstest.SMSGateway { return &fake.SMS{} },
		func(*testing.T) string { return core.NewID(core.PrefixTenant) })
}

func TestChainReads(t *testing.T) {
	portstest.ChainReads(t, func(*testing.T) ports.Chain { return fake.NewChain(84532) })
}

// TestLedgerAnchorStore runs the anchor store's suite against the fake, told of each linked
// transfer and relayer send.
func TestLedgerAnchorStore(t *testing.T) {
	portstest.LedgerAnchorStore(t, func(*testing.T) portstest.AnchorWorld {
		s := fake.NewLedgerAnchors()
		return portstest.AnchorWorld{Store: s, Advance: func(*testing.T) { s.Advance() },
			LogSent: func(_ *testing.T, chainID int64, payload []byte, hash string) { s.LogSent(chainID, payload, hash) }}
	})
}
