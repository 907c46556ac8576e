package mirror

import (
	"io"
	"log/slog"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Deps are the ports and settings of the ledger mirror.
type Deps struct {
	Store ports.Store
	Jobs  ports.Jobs
	Clock ports.Clock // nil: the wall clock
	// Chains are the configured chains per environment; the indexer runs for each that has one.
	Chains map[core.Environment]ports.Chain
	// Confirmations is the confirmation depth per environment: the indexer reads only blocks at
	// least this many blocks below the head (0: up to the head).
	Confirmations map[core.Environment]uint64
	// Logger records what the indexer skipped or undid; nil discards it.
	Logger *slog.Logger
	// CardModules are the card spend modules per environment: the mirror books a module's
	// settlements against the issuer's clearing account. Nil or empty: no card modules.
	CardModules map[core.Environment]ports.CardSpendModule
	// CardIssuer names the issuer whose clearing account card settlements debit
	// (ledger.IssuerClearing); "" is DefaultCardIssuer.
	CardIssuer string
}

// DefaultCardIssuer is the card issuer when Deps.CardIssuer is empty: the sandbox issuer.
const DefaultCardIssuer = "sandbox"

// Service runs the ledger mirror's indexer, its job and the catch-up other capabilities ask for.
type Service struct {
	store         kernel.Units[txView]
	jobs          ports.Jobs
	clock         ports.Clock
	chains        kernel.Chains
	confirmations map[core.Environment]uint64
	log           *slog.Logger
	cardModules   kernel.CardModules
	cardIssuer    string
}

var _ kernel.Jobs = (*Service)(nil)

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("mirror", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs}); err != nil {
		return nil, err
	}
	return &Service{store: kernel.NewUnits(d.Store, narrow), jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), chains: d.Chains,
		confirmations: d.Confirmations, log: loggerOrDiscard(d.Logger),
		cardModules: d.CardModules, cardIssuer: cardIssuerOrDefault(d.CardIssuer)}, nil
}

func cardIssuerOrDefault(issuer string) string {
	if issuer == "" {
		return DefaultCardIssuer
	}
	return issuer
}

func loggerOrDiscard(l *slog.Logger) *slog.Logger {
	if l == nil {
		return slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return l
}
