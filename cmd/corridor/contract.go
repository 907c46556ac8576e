package main

import (
	"encoding/json"
	"fmt"
	"io"

	httpadapter "github.com/corridorhq/corridor/adapters/http"
	"github.com/corridorhq/corridor/wiring"
)

// versionCmd prints the build: its version (the info.version of the document it serves), the
// API version it implements (the committed document's, CHANGELOG.md's newest entry), module,
// commit and Go version.
func versionCmd(w io.Writer) error {
	b := wiring.ReadBuild()
	commit := b.Commit
	if commit == "" {
		commit = "unknown"
	}
	_, err := fmt.Fprintf(w, "corridor %s\napi %s\nmodule %s\ncommit %s (modified: %t)\ngo %s\n",
		b.String(), httpadapter.APIVersion, b.Module, commit, b.Modified, b.GoVersion)
	return err
}

// openapiCmd prints the OpenAPI document of every route a build can serve (the contract the
// clients under sdk/ are generated from), indented, with a trailing newline. --version sets
// info.version, by default the API version (APIVersion, without build metadata), so the
// committed document and the clients generated from it do not change with every commit.
func openapiCmd(w io.Writer, args []string) error {
	version := httpadapter.APIVersion
	for i := 0; i < len(args); i++ {
		switch {
		case args[i] == "--version" && i+1 < len(args):
			version = args[i+1]
			i++
		default:
			return fmt.Errorf("corridor openapi: unknown argument %q (usage: corridor openapi [--version V])", args[i])
		}
	}
	raw, err := json.MarshalIndent(httpadapter.Document(version), "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", raw)
	return err
}
