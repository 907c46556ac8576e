package twofactors

import (
	"context"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/twofactor"
	"github.com/corridorhq/corridor/ports"
)

// ContactInput is a contact as a client sends it; ChainID nil means the environment's chain.
type ContactInput struct {
	Address string
	Label   string
	ChainID *int64
}

// CreateContact saves a payee. Its cooling-off window starts now.
func (s *Service) CreateContact(ctx context.Context, p auth.Principal, in ContactInput) (twofactor.Contact, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeContactsWrite); err != nil {
		return twofactor.Contact{}, err
	}
	errs := core.FieldErrors{}
	addr := strings.TrimSpace(in.Address)
	if !common.IsHexAddress(addr) || !strings.HasPrefix(addr, "0x") {
		errs.Add("address", "must be a 0x-prefixed 20-byte hex address")
	} else if common.HexToAddress(addr) == (common.Address{}) {
		errs.Add("address", "must not be the zero address")
	} else if s.isPlatform(addr) {
		errs.Add("address", "is an address of the platform itself (such as the ramps' liquidation address), not a payee: it cannot be saved as a contact")
	}
	label := strings.TrimSpace(in.Label)
	if label == "" || len(label) > twofactor.MaxLabelLength {
		errs.Add("label", "is required, at most 100 bytes")
	} else if why := core.TextProblem(label); why != "" {
		errs.Add("label", why)
	}
	if in.ChainID != nil && *in.ChainID <= 0 {
		errs.Add("chainId", "must be a positive chain id")
	}
	if err := errs.Err(); err != nil {
		return twofactor.Contact{}, err
	}
	// A contact only names its chain: without a node for the environment it takes the
	// environment's chain id, so contacts work where no chain is configured (LIVE here).
	chainID := kernel.DefaultChainID(p.Environment)
	if in.ChainID != nil {
		chainID = *in.ChainID
	} else if chain, err := s.chains.Chain(p.Environment); err == nil {
		chainID = chain.ChainID()
	}
	c := twofactor.Contact{ID: core.NewID(core.PrefixContact), TenantID: p.TenantID, Environment: p.Environment,
		Address: common.HexToAddress(addr).Hex(), Label: label, ChainID: chainID, CreatedAt: s.clock.Now().UTC()}
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		_, total, err := tx.TwoFactor().ListContacts(ctx, p.TenantID, p.Environment, ports.Page{Take: 1})
		if err != nil {
			return err
		}
		if total >= twofactor.MaxContacts {
			return core.E(core.CodeInvalidState, "a tenant keeps at most %d contacts per environment; delete some first", twofactor.MaxContacts)
		}
		return tx.TwoFactor().CreateContact(ctx, c)
	})
	return c, err
}

// ListContacts lists the tenant's contacts of this environment, newest first.
func (s *Service) ListContacts(ctx context.Context, p auth.Principal, page ports.Page) ([]twofactor.Contact, int, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeContactsRead); err != nil {
		return nil, 0, err
	}
	var out []twofactor.Contact
	var total int
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		out, total, err = tx.TwoFactor().ListContacts(ctx, p.TenantID, p.Environment, page)
		return err
	})
	return out, total, err
}

// DeleteContact removes a contact; paying the address again needs a new contact and a new
// cooling-off window.
func (s *Service) DeleteContact(ctx context.Context, p auth.Principal, id string) (twofactor.Contact, error) {
	if err := kernel.RequireTenantScope(p, auth.ScopeContactsWrite); err != nil {
		return twofactor.Contact{}, err
	}
	var c twofactor.Contact
	err := s.store.InTx(ctx, func(ctx context.Context, tx txView) error {
		var err error
		c, err = tx.TwoFactor().DeleteContact(ctx, p.TenantID, p.Environment, id)
		return err
	})
	return c, err
}
