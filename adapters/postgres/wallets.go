package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

type walletOwnerJSON struct {
	Address string  `json:"address"`
	Role    string  `json:"role"`
	Label   *string `json:"label"`
}

type walletModel struct {
	bun.BaseModel  `bun:"table:wallets"`
	ID             string          `bun:"id,pk"`
	TenantID       string          `bun:"tenant_id,pk"`
	Environment    string          `bun:"environment"`
	Name           string          `bun:"name"`
	Purpose        string          `bun:"purpose"`
	ChainID        int64           `bun:"chain_id"`
	Address        string          `bun:"address"`
	Owners         json.RawMessage `bun:"owners,type:jsonb"`
	Threshold      int             `bun:"threshold"`
	Status         string          `bun:"status"`
	DeployTxHash   *string         `bun:"deploy_tx_hash"`
	DeployAttempts int             `bun:"deploy_attempts"`
	FailureReason  *string         `bun:"failure_reason"`
	CreatedAt      time.Time       `bun:"created_at"`
	DeployedAt     *time.Time      `bun:"deployed_at"`
	SetupModule    *string         `bun:"setup_module"`
	CustodyKeyRef  *string         `bun:"custody_key_ref"`
}

func walletFromDomain(w wallet.Wallet) (walletModel, error) {
	owners := make([]walletOwnerJSON, len(w.Owners))
	for i, o := range w.Owners {
		owners[i] = walletOwnerJSON{Address: o.Address, Role: string(o.Role), Label: nullable(o.Label)}
	}
	raw, err := json.Marshal(owners)
	return walletModel{
		ID: w.ID, TenantID: w.TenantID, Environment: string(w.Environment), Name: w.Name, Purpose: string(w.Purpose), ChainID: w.ChainID,
		Address: w.Address, Owners: raw, Threshold: w.Threshold, Status: string(w.Status),
		DeployTxHash: nullable(w.DeployTxHash), DeployAttempts: w.DeployAttempts, FailureReason: nullable(w.FailureReason),
		CreatedAt: w.CreatedAt, DeployedAt: w.DeployedAt, SetupModule: nullable(w.SetupModule),
		CustodyKeyRef: nullable(w.CustodyKeyRef),
	}, err
}

// domain converts a row back, checking what a constructor would.
func (m walletModel) domain() (wallet.Wallet, error) {
	var owners []walletOwnerJSON
	if err := json.Unmarshal(m.Owners, &owners); err != nil || len(owners) == 0 {
		return wallet.Wallet{}, fmt.Errorf("postgres: wallet %s has unreadable owners: %v", m.ID, err)
	}
	w := wallet.Wallet{
		ID: m.ID, TenantID: m.TenantID, Environment: core.Environment(m.Environment), Name: m.Name, Purpose: wallet.Purpose(m.Purpose),
		ChainID: m.ChainID, Address: m.Address, Threshold: m.Threshold, Status: wallet.Status(m.Status),
		DeployTxHash: deref(m.DeployTxHash), DeployAttempts: m.DeployAttempts, FailureReason: deref(m.FailureReason),
		CreatedAt: m.CreatedAt.UTC(), DeployedAt: utcPtr(m.DeployedAt), SetupModule: deref(m.SetupModule),
		CustodyKeyRef: deref(m.CustodyKeyRef),
	}
	for _, o := range owners {
		w.Owners = append(w.Owners, wallet.Owner{Address: o.Address, Role: wallet.Role(o.Role), Label: deref(o.Label)})
	}
	if !w.Purpose.Valid() {
		return wallet.Wallet{}, fmt.Errorf("postgres: wallet %s has unknown purpose %q", m.ID, m.Purpose)
	}
	if w.Threshold < 1 || w.Threshold > len(w.Owners) {
		return wallet.Wallet{}, fmt.Errorf("postgres: wallet %s has threshold %d for %d owners", m.ID, w.Threshold, len(w.Owners))
	}
	return w, nil
}

type walletRepo struct{ db bun.IDB }

var errWalletNotFound = core.NotFound(core.CodeWalletNotFound, "wallet")

func (r walletRepo) CreateWallet(ctx context.Context, w wallet.Wallet) error {
	m, err := walletFromDomain(w)
	if err != nil {
		return err
	}
	if _, err = r.db.NewInsert().Model(&m).Exec(ctx); err != nil {
		return err
	}
	// The address stays one tenant's in its environment across all tenants (the lookup row's
	// unique index); a second wallet of the same tenant at it (another chain) shares the row.
	return addLookupOnce(ctx, rawQuerier(r.db), walletAddressKey(w.Environment, w.Address), lookupWalletAddress, w.TenantID)
}

// walletAddressKey is a wallet address's lookup key: the environment and the lower-cased address.
func walletAddressKey(env core.Environment, address string) string {
	return string(env) + ":" + strings.ToLower(address)
}

func (r walletRepo) FindWallet(ctx context.Context, tenantID string, env core.Environment, id string) (wallet.Wallet, error) {
	return oneRow[wallet.Wallet, walletModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND environment = ? AND id = ?", tenantID, env, id), errWalletNotFound)
}

func (r walletRepo) LockWallet(ctx context.Context, tenantID, id string) (wallet.Wallet, error) {
	tenantID, err := tenantOfRow(ctx, r.db, "wallets", tenantID, id)
	if err != nil {
		return wallet.Wallet{}, err
	}
	return oneRow[wallet.Wallet, walletModel](ctx, r.db.NewSelect().Where("tenant_id = ? AND id = ?", tenantID, id).For("UPDATE"), errWalletNotFound)
}

func (r walletRepo) ListWallets(ctx context.Context, tenantID string, env core.Environment, page ports.Page) ([]wallet.Wallet, int, error) {
	var rows []walletModel
	total, err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).
		OrderExpr("id ASC").Offset(int64(page.Skip)).Limit(int64(page.Take)).ScanAndCount(ctx)
	if err != nil {
		return nil, 0, err
	}
	out, err := walletsFromRows(rows)
	return out, int(total), err
}

func (r walletRepo) ListTenantWallets(ctx context.Context, tenantID string, env core.Environment, limit int) ([]wallet.Wallet, error) {
	var rows []walletModel
	err := r.db.NewSelect().Model(&rows).Where("tenant_id = ? AND environment = ?", tenantID, env).OrderExpr("id ASC").Limit(int64(limit)).Scan(ctx)
	if err != nil {
		return nil, err
	}
	return walletsFromRows(rows)
}

func (r walletRepo) UpdateWallet(ctx context.Context, w wallet.Wallet) error {
	m, err := walletFromDomain(w)
	if err != nil {
		return err
	}
	_, err = r.db.NewUpdate().Model(&m).WherePK().Exec(ctx)
	return err
}

func walletsFromRows(rows []walletModel) ([]wallet.Wallet, error) {
	return domainRows[wallet.Wallet](rows)
}

func (r walletRepo) CountWalletsLocked(ctx context.Context, tenantID string, env core.Environment) (int, error) {
	if _, err := r.db.ExecContext(ctx, "SELECT pg_advisory_xact_lock(hashtextextended(?, 3))", "wallets:"+tenantID+"|"+string(env)); err != nil {
		return 0, err
	}
	n, err := r.db.NewSelect().Model((*walletModel)(nil)).Where("tenant_id = ? AND environment = ?", tenantID, env).Count(ctx)
	return int(n), err
}
