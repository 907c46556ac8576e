// Package twofactor is the contacts and two-factor approval capability: saved payees with a
// cooling-off window, TOTP factors, the tenant's approval settings, challenges bound to one
// transaction, and the approval gate Safe payment proposals pass (docs/twofactor.md).
package twofactors

import (
	"strings"
	"time"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/ports"
)

// Deps are the ports of the capability.
type Deps struct {
	Store  ports.Store
	Cipher ports.Cipher
	Clock  ports.Clock // nil: the wall clock
	// Chains give each environment's chain id (a contact's default chainId).
	Chains map[core.Environment]ports.Chain
	// CoolingOff is a new contact's cooling-off window; 0 means twofactor.DefaultCoolingOff.
	CoolingOff time.Duration
	// Issuer names the service in authenticator apps ("Corridor" when empty).
	Issuer string
	// PlatformAddresses are addresses the platform itself receives at (the ramps' liquidation
	// address): no tenant saves them as contacts, and contacts' rules never stand in the way
	// of a payment to them.
	PlatformAddresses []string
}

// Service runs contacts and two-factor use cases.
type Service struct {
	store      kernel.Units[txView]
	cipher     ports.Cipher
	clock      ports.Clock
	chains     kernel.Chains
	coolingOff time.Duration
	issuer     string
	platform   map[string]bool // lower-case addresses
}

// New checks the wiring.
func New(d Deps) (*Service, error) {
	if err := kernel.RequirePorts("twofactor", kernel.Port{Name: "Store", Value: d.Store}, kernel.Port{Name: "Cipher", Value: d.Cipher}); err != nil {
		return nil, err
	}
	window := d.CoolingOff
	if window <= 0 {
		window = twofactor.DefaultCoolingOff
	}
	issuer := d.Issuer
	if issuer == "" {
		issuer = "Corridor"
	}
	platform := map[string]bool{}
	for _, a := range d.PlatformAddresses {
		platform[strings.ToLower(strings.TrimSpace(a))] = true
	}
	return &Service{store: kernel.NewUnits(d.Store, narrow), cipher: d.Cipher, clock: kernel.ClockOrSystem(d.Clock), chains: d.Chains, coolingOff: window, issuer: issuer,
		platform: platform}, nil
}

// isPlatform reports whether address is one the platform receives at.
func (s *Service) isPlatform(address string) bool { return s.platform[strings.ToLower(address)] }

// CoolingOff is the configured cooling-off window.
func (s *Service) CoolingOff() time.Duration { return s.coolingOff }
