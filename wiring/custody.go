package wiring

import (
	"github.com/uptrace/bun"

	"github.com/corridorhq/corridor/adapters/custody"
	"github.com/corridorhq/corridor/adapters/outside"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
)

// custodySigners are the custody signers per environment (docs/decisions/wallets.md): TEST keeps custody keys in the
// keystore sealed by the service cipher; LIVE only in an HSM, through PKCS#11, when one is
// configured. Both sit behind the outside-call guard; the returned function closes the HSM
// session.
func custodySigners(cfg Config, db bun.IDB, protect ports.Cipher) (map[core.Environment]ports.CustodySigner, func(), error) {
	signers := map[core.Environment]ports.CustodySigner{core.EnvTest: outside.Custody{CustodySigner: custody.NewKeystore(db, protect)}}
	if cfg.CustodyPKCS11 == nil {
		return signers, func() {}, nil
	}
	hsm, err := custody.OpenPKCS11(*cfg.CustodyPKCS11)
	if err != nil {
		return nil, nil, err
	}
	signers[core.EnvLive] = outside.Custody{CustodySigner: hsm}
	return signers, hsm.Close, nil
}
