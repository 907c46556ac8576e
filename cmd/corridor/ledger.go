package main

import (
	"context"
	"errors"
	"log/slog"
)

// ledgerCmd runs `corridor ledger <subcommand>`.
func ledgerCmd(ctx context.Context, cfg config, log *slog.Logger, args []string) error {
	return errors.New("ledger: not built yet")
}
