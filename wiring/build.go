package wiring

import (
	"runtime/debug"
	"strings"

	httpadapter "github.com/corridorhq/corridor/adapters/http"
)

// BuildInfo is what a binary knows of its own build, from the module and VCS stamps the Go
// toolchain embeds: `corridor version`, GET /v1/capabilities and the OpenAPI info.version all
// report it, so a partner can tell which build answered.
type BuildInfo struct {
	Module    string `json:"module"`
	Version   string `json:"version"`
	Commit    string `json:"commit"`
	Modified  bool   `json:"modified"`
	GoVersion string `json:"goVersion"`
}

// ReadBuild reads the running binary's build. A binary built outside a VCS checkout (or a test
// binary) has no commit; `go build` in the checkout stamps it.
func ReadBuild() BuildInfo {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return BuildInfo{Version: "(unknown)"}
	}
	b := BuildInfo{Module: info.Main.Path, Version: info.Main.Version, GoVersion: info.GoVersion}
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Commit = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// String is the build in one word: the module version, or for a development build the API
// version this tree serves (httpadapter.APIVersion) with the commit's first twelve characters as
// build metadata ("2.0.0+0123456789ab",
// "+…-dirty" when the tree had uncommitted changes), a valid semantic version either way.
func (b BuildInfo) String() string {
	version := b.Version
	if version == "" || version == "(devel)" || version == "(unknown)" {
		version = httpadapter.APIVersion
	}
	if b.Commit == "" {
		return version
	}
	commit := b.Commit
	if len(commit) > 12 {
		commit = commit[:12]
	}
	if b.Modified {
		commit += "-dirty"
	}
	if strings.Contains(version, "+") {
		return version + "." + commit
	}
	return version + "+" + commit
}
