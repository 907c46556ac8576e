package wallets

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/wallet"
	"github.com/corridorhq/corridor/ports"
)

// fakeModule is a card spend module at module (zero: not configured).
type fakeModule struct {
	ports.CardSpendModule
	module common.Address
}

func (m fakeModule) CardModuleAddress() common.Address { return m.module }

func TestSetupModuleFor_TestWalletsOnlyAndOnlyWithAModule(t *testing.T) {
	module := common.HexToAddress("0x00000000000000000000000000000000000c4a2d")
	for _, row := range []struct {
		name string
		env  core.Environment
		mod  ports.CardSpendModule
		want string
	}{
		{"TEST with a module", core.EnvTest, fakeModule{module: module}, module.Hex()},
		{"LIVE with a module", core.EnvLive, fakeModule{module: module}, ""},
		{"TEST, module not configured", core.EnvTest, fakeModule{}, ""},
		{"TEST, no module", core.EnvTest, nil, ""},
	} {
		if got := setupModuleFor(row.env, row.mod); got != row.want {
			t.Errorf("%s: setup module = %q, want %q", row.name, got, row.want)
		}
	}
}

func TestSafeConfigOf_CarriesTheRecordedSetupModule(t *testing.T) {
	w := wallet.Wallet{ID: "wal_1", Owners: []wallet.Owner{{Address: "0x00000000000000000000000000000000000000a1"}}, Threshold: 1}
	if cfg := safeConfigOf(w); cfg.SetupModule != (common.Address{}) {
		t.Errorf("a wallet without a setup module (created before modules at setup) got %s", cfg.SetupModule.Hex())
	}
	w.SetupModule = "0x00000000000000000000000000000000000c4a2d"
	if cfg := safeConfigOf(w); cfg.SetupModule != common.HexToAddress(w.SetupModule) {
		t.Errorf("setup module = %s, want %s", cfg.SetupModule.Hex(), w.SetupModule)
	}
}
