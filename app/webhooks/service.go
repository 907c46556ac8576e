// Package webhooks is the events and webhooks capability (docs/decisions/webhooks.md): it lists the events
// every other capability records in its own transactions, manages a tenant's webhook endpoints,
// and delivers each event to the endpoints that subscribe to it as durable River jobs, signed,
// retried with exponential backoff and jitter for a bounded window, at least once.
package webhooks

import (
	"context"
	"log/slog"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// Sender posts one signed delivery. Implementations refuse destinations that are not allowed
// (SSRF): every address a host resolves to is checked, and the connection is checked again at
// dial time so a DNS answer that changes between the two cannot slip through.
type Sender interface {
	// CheckDestination refuses a URL whose host is, or resolves to, a loopback, private,
	// link-local or otherwise internal address, unless allowPrivate.
	CheckDestination(ctx context.Context, rawURL string, allowPrivate bool) error
	// Send posts body with headers and returns the receiver's status; err is set when no
	// response came back (refused destination, timeout, connection error).
	Send(ctx context.Context, rawURL string, body []byte, headers map[string]string, allowPrivate bool) (status int, err error)
}

// Config tunes deliveries; zero fields take DefaultConfig's.
type Config struct {
	// RetryBase is the delay before the second attempt; each later one doubles it, up to
	// RetryMax, with jitter (a uniformly drawn half to all of the delay).
	RetryBase time.Duration
	RetryMax  time.Duration
	// RetryWindow is how long a delivery is retried, and how long an endpoint may fail
	// without a success before it is disabled (3 days).
	RetryWindow time.Duration
	// Timeout bounds one attempt; a receiver slower than this is retried.
	Timeout time.Duration
	// DispatchInterval is the period of the pass that fans new events out to endpoints.
	DispatchInterval time.Duration
	// AllowPrivateTest lets TEST endpoints point at loopback and private addresses (local
	// receivers during development); LIVE endpoints never may.
	AllowPrivateTest bool
}

// DefaultConfig: 30 s doubling to at most 6 h, for 3 days; 10 s per attempt; fan-out every
// second.
var DefaultConfig = Config{RetryBase: 30 * time.Second, RetryMax: 6 * time.Hour, RetryWindow: 72 * time.Hour,
	Timeout: 10 * time.Second, DispatchInterval: time.Second}

// Deps are the ports of the webhooks capability.
type Deps struct {
	Store  ports.Store
	Jobs   ports.Jobs
	Clock  ports.Clock // nil: the wall clock
	Cipher ports.Cipher
	Sender Sender
	Config Config
	Logger *slog.Logger
}

// Service runs the events and webhooks use cases and the delivery jobs.
type Service struct {
	store  kernel.Units[txView]
	jobs   ports.Jobs
	clock  ports.Clock
	cipher ports.Cipher
	sender Sender
	cfg    Config
	log    *slog.Logger
}

var _ kernel.Jobs = (*Service)(nil)

// New checks the wiring and fails at start-up when a required port is missing.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("webhooks", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Jobs", Value: d.Jobs},
		kernel.Port{Name: "Cipher", Value: d.Cipher}, kernel.Port{Name: "Sender", Value: d.Sender}); err != nil {
		return nil, err
	}
	cfg := d.Config
	def := DefaultConfig
	cfg.RetryBase = orDefault(cfg.RetryBase, def.RetryBase)
	cfg.RetryMax = max(orDefault(cfg.RetryMax, def.RetryMax), cfg.RetryBase)
	cfg.RetryWindow = orDefault(cfg.RetryWindow, def.RetryWindow)
	cfg.Timeout = orDefault(cfg.Timeout, def.Timeout)
	cfg.DispatchInterval = orDefault(cfg.DispatchInterval, def.DispatchInterval)
	log := d.Logger
	if log == nil {
		log = slog.Default()
	}
	return &Service{store: kernel.NewUnits(d.Store, narrow), jobs: d.Jobs, clock: kernel.ClockOrSystem(d.Clock), cipher: d.Cipher, sender: d.Sender,
		cfg: cfg, log: log}, nil
}

func orDefault(v, def time.Duration) time.Duration {
	if v <= 0 {
		return def
	}
	return v
}

// allowPrivate says whether endpoints of env may point at internal addresses.
func (s *Service) allowPrivate(env core.Environment) bool {
	return env == core.EnvTest && s.cfg.AllowPrivateTest
}

// secretContext binds a sealed secret to its endpoint, so a ciphertext moved to another row
// does not open.
func secretContext(endpointID string) string { return "webhook-secret:" + endpointID }
