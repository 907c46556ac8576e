package policies

import (
	"context"
	"io"
	"log/slog"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/policy"
	"github.com/corridorhq/corridor/ports"
)

// Agents answers whether an agent exists in the tenant and environment (AGENT_NOT_FOUND
// otherwise), for attachments and evaluations naming an agent subject.
type Agents interface {
	RequireAgent(ctx context.Context, tenantID string, env core.Environment, agentID string) error
}

// Deps are the ports and settings of the policy capability.
type Deps struct {
	Store ports.Store
	Clock ports.Clock // nil: the wall clock
	// Enforcement is the POLICY_ENFORCEMENT rollout flag; "" is the default, log.
	Enforcement policy.Mode
	// Logger records would-be declines and policy subsystem errors; nil discards them.
	Logger *slog.Logger
	// Agents lets policies name agent subjects; nil: agent subjects answer FEATURE_NOT_AVAILABLE.
	Agents Agents
}

// Service runs the policy use cases and the enforcement gates.
type Service struct {
	store  kernel.Units[txView]
	clock  ports.Clock
	mode   policy.Mode
	log    *slog.Logger
	agents Agents
}

// New checks the wiring and the rollout flag, and fails at start-up when either is wrong.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("policy", kernel.Port{Name: "Store", Value: d.Store}); err != nil {
		return nil, err
	}
	mode, ok := policy.ParseMode(string(d.Enforcement))
	if !ok {
		return nil, core.E(core.CodeInternal, "policy: Enforcement must be off, log or enforce, got %q", d.Enforcement)
	}
	log := d.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	return &Service{store: kernel.NewUnits(d.Store, narrow), clock: kernel.ClockOrSystem(d.Clock), mode: mode, log: log, agents: d.Agents}, nil
}

// Enforcement is the configured rollout mode.
func (s *Service) Enforcement() policy.Mode { return s.mode }
