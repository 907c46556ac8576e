// Package wallet holds the rules of Safe wallets: owners and roles, threshold, the chain a
// wallet lives on, and the deployment state machine of docs/api.md (Wallet).
package wallet

import (
	"fmt"
	"strings"
	"time"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/tenant"
)

// Chain ids of docs/api.md: the sandbox chain and the live chain.
const (
	SandboxChainID int64 = 84532
	LiveChainID    int64 = 8453
)

// MaxWalletsPerTenant bounds the wallets one tenant holds per environment: every wallet is a
// relayer-paid deployment and a party the ledger mirror watches on every block.
const MaxWalletsPerTenant = 1000

// CodeWalletQuotaExceeded refuses a wallet past MaxWalletsPerTenant.
const CodeWalletQuotaExceeded core.Code = "WALLET_QUOTA_EXCEEDED"

// CodeCustodyUnavailable answers a custodial wallet asked for in an environment without a
// custody signer, or a signer that did not answer (LIVE accepts only an HSM, docs/decisions/wallets.md).
const CodeCustodyUnavailable core.Code = "CUSTODY_UNAVAILABLE"

// Bounds of a wallet's definition.
const (
	MaxOwners     = 20
	MaxNameLength = 100
	MaxLabel      = 100
)

// Role of an owner (docs/api.md Wallet.owners).
type Role string

const (
	RoleAdminOwner       Role = "ADMIN_OWNER"
	RoleFinanceOwner     Role = "FINANCE_OWNER"
	RoleMerchantOperator Role = "MERCHANT_OPERATOR"
	RoleAgent            Role = "AGENT"
)

var roles = map[Role]bool{RoleAdminOwner: true, RoleFinanceOwner: true, RoleMerchantOperator: true, RoleAgent: true}

// Purpose says what a wallet is for. Partners create GENERAL wallets; the other purposes are
// provisioned by a capability for its own use (an agent's Safe, a treasury bucket, an invoice's
// hold Safe) and are listed with the tenant's wallets like any other.
type Purpose string

const (
	PurposeGeneral  Purpose = "GENERAL"
	PurposeAgent    Purpose = "AGENT"
	PurposeTreasury Purpose = "TREASURY"
	PurposeEscrow   Purpose = "ESCROW"
)

// Valid reports whether p is one of the purposes above.
func (p Purpose) Valid() bool {
	switch p {
	case PurposeGeneral, PurposeAgent, PurposeTreasury, PurposeEscrow:
		return true
	}
	return false
}

// Owner is one signer of the Safe.
type Owner struct {
	Address string // EIP-55 checksummed
	Role    Role
	Label   string // "" = none
}

// Wallet is a Safe holding USDC.
type Wallet struct {
	ID          string
	TenantID    string
	Environment core.Environment
	Name        string
	// Purpose is GENERAL unless a capability provisioned the wallet for its own use.
	Purpose   Purpose
	ChainID   int64
	Address   string // the CREATE2 address, valid before deployment
	Owners    []Owner
	Threshold int
	Status    Status
	// DeployTxHash is the factory transaction, once submitted.
	DeployTxHash   string
	DeployAttempts int
	FailureReason  string
	CreatedAt      time.Time
	DeployedAt     *time.Time
	// SetupModule is the Safe module (hex address) the Safe enables in its own setup, "" for
	// none: the card spend module on TEST wallets created while the chain had one. It is part of
	// the Safe's setup data, so of its address, and never changes.
	SetupModule string
	// CustodyKeyRef names the custody key that owns the Safe when the service signs for it (a
	// custodial wallet of the secondary surface, docs/decisions/wallets.md); "" when the owners hold their own keys.
	CustodyKeyRef string
}

// Custodial reports whether the service signs for the wallet with a custody key.
func (w Wallet) Custodial() bool { return w.CustodyKeyRef != "" }

// PredictedAddress is true until deployment completes.
func (w Wallet) PredictedAddress() bool { return w.Status != StatusDeployed }

// OwnerAddresses lists the owners' addresses.
func (w Wallet) OwnerAddresses() []string {
	out := make([]string, len(w.Owners))
	for i, o := range w.Owners {
		out[i] = o.Address
	}
	return out
}

// HasOwner reports whether address (any case) is an owner.
func (w Wallet) HasOwner(address string) bool {
	for _, o := range w.Owners {
		if strings.EqualFold(o.Address, address) {
			return true
		}
	}
	return false
}

// OwnerInput is an owner as a client sends it.
type OwnerInput struct {
	Address string
	Role    string
	Label   *string
}

// Definition is a validated request to create a wallet.
type Definition struct {
	Name      string
	Owners    []Owner
	Threshold int
	ChainID   int64
}

// DefaultChain is the environment's chain (84532 in TEST, 8453 in LIVE).
func DefaultChain(env core.Environment) int64 {
	if env == core.EnvLive {
		return LiveChainID
	}
	return SandboxChainID
}

// Define validates a create request: a name, 1–20 distinct owners with known roles, a
// threshold between 1 and the number of owners (default 1), and a chain of the caller's
// environment (default the environment's chain).
func Define(env core.Environment, name string, owners []OwnerInput, threshold *int, chainID *int64) (Definition, error) {
	errs := core.FieldErrors{}
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		errs.Add("name", "is required")
	case len(name) > MaxNameLength:
		errs.Add("name", fmt.Sprintf("must be at most %d characters", MaxNameLength))
	case core.TextProblem(name) != "":
		errs.Add("name", core.TextProblem(name))
	}
	parsed := parseOwners(owners, errs)
	def := Definition{Name: name, Owners: parsed, Threshold: 1, ChainID: DefaultChain(env)}
	if threshold != nil {
		def.Threshold = *threshold
	}
	if def.Threshold < 1 || (len(parsed) > 0 && def.Threshold > len(parsed)) {
		errs.Add("threshold", fmt.Sprintf("must be between 1 and the number of owners (%d)", len(parsed)))
	}
	if chainID != nil {
		def.ChainID = *chainID
		if want := DefaultChain(env); def.ChainID != want {
			errs.Add("chainId", fmt.Sprintf("must be %d for a %s key", want, env))
		}
	}
	return def, errs.Err()
}

func parseOwners(owners []OwnerInput, errs core.FieldErrors) []Owner {
	if len(owners) == 0 {
		errs.Add("owners", "must list at least one owner")
		return nil
	}
	if len(owners) > MaxOwners {
		errs.Add("owners", fmt.Sprintf("must list at most %d owners", MaxOwners))
		return nil
	}
	seen := map[string]bool{}
	out := make([]Owner, 0, len(owners))
	for i, in := range owners {
		field := fmt.Sprintf("owners[%d]", i)
		addr, err := tenant.ValidateAddress(field+".address", in.Address)
		if in.Address == "" {
			errs.Add(field+".address", "is required")
		} else if err != nil {
			errs.Add(field+".address", "must be a valid EVM address (0x + 40 hex digits, EIP-55 checksum when mixed case)")
		} else if seen[strings.ToLower(addr)] {
			errs.Add(field+".address", "is listed twice")
		}
		seen[strings.ToLower(addr)] = true
		role := Role(strings.ToUpper(in.Role))
		if !roles[role] {
			errs.Add(field+".role", "must be ADMIN_OWNER, FINANCE_OWNER, MERCHANT_OPERATOR or AGENT")
		}
		label := ""
		if in.Label != nil {
			label = strings.TrimSpace(*in.Label)
			if len(label) > MaxLabel {
				errs.Add(field+".label", fmt.Sprintf("must be at most %d characters", MaxLabel))
			}
		}
		out = append(out, Owner{Address: addr, Role: role, Label: label})
	}
	return out
}
