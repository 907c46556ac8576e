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

func TestLedgerStore(t *testing.T) {
	shared := fake.NewStore()
	portstest.LedgerStore(t, func(*testing.T) ports.Store { return shared })
}

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
