package wiring

import (
	"testing"

	httpadapter "github.com/corridorhq/corridor/adapters/http"
)

// TestBuildInfo_String: a release is its module version; a development build is the API version
// with the commit (and -dirty) as build metadata, a valid semantic version either way.
func TestBuildInfo_String(t *testing.T) {
	api := httpadapter.APIVersion
	for _, tc := range []struct {
		b    BuildInfo
		want string
	}{
		{BuildInfo{Version: "v1.4.0"}, "v1.4.0"},
		{BuildInfo{Version: "(devel)"}, api},
		{BuildInfo{Version: "(devel)", Commit: "0123456789abcdef0123"}, api + "+0123456789ab"},
		{BuildInfo{Version: "(devel)", Commit: "0123456789abcdef0123", Modified: true}, api + "+0123456789ab-dirty"},
		{BuildInfo{Version: "v1.4.1-0.20261127-abcdef+incompatible", Commit: "0123456789abcdef"}, "v1.4.1-0.20261127-abcdef+incompatible.0123456789ab"},
	} {
		if got := tc.b.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.b, got, tc.want)
		}
	}
}
