package postgres

import (
	"context"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
)

// KeyRevokedChannel is the LISTEN/NOTIFY channel of API-key revocations. A revocation notifies
// it in its own transaction, so every replica hears of it exactly when it commits, and never
// of one rolled back.
const KeyRevokedChannel = "corridor_api_key_revoked"

// ListenKeyRevocations holds one connection LISTENing on KeyRevokedChannel until ctx ends and
// calls forget for every revocation any replica commits. It calls forget too whenever it
// (re)connects, since revocations may have gone unheard while it was away; in between, the
// cache's own short TTL bounds what a lost connection can hide.
func ListenKeyRevocations(ctx context.Context, url string, forget func(), log *slog.Logger) {
	backoff := 100 * time.Millisecond
	for ctx.Err() == nil {
		err := listenOnce(ctx, url, forget)
		if ctx.Err() != nil {
			return
		}
		log.Warn("key revocation listener lost its connection; reconnecting", "error", err.Error(), "retryIn", backoff.String())
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 10*time.Second)
	}
}

// listenSetupTimeout bounds connecting, LISTEN and closing: a silent database must not hold
// the listener before it waits (the wait itself is meant to last).
const listenSetupTimeout = 10 * time.Second

func listenOnce(ctx context.Context, url string, forget func()) error {
	setupCtx, cancel := context.WithTimeout(ctx, listenSetupTimeout)
	defer cancel()
	conn, err := pgx.Connect(setupCtx, url)
	if err != nil {
		return err
	}
	defer func() {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), listenSetupTimeout)
		defer cancel()
		_ = conn.Close(closeCtx)
	}()
	if _, err := conn.Exec(setupCtx, "LISTEN "+KeyRevokedChannel); err != nil {
		return err
	}
	forget()
	for {
		if _, err := conn.WaitForNotification(ctx); err != nil {
			return err
		}
		forget()
	}
}
