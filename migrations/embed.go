// Package migrations embeds the golang-migrate SQL files into the binary, so `corridor migrate`
// and `corridor serve` need nothing on disk. schema.sql beside them is the dumped whole schema.
package migrations

import "embed"

// FS holds every NNNNNN_verb_noun.{up,down}.sql file.
//
//go:embed *.sql
var FS embed.FS
