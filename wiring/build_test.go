package wiring

import "testing"

// TestBuildInfo_String: a release is its module version; a development build is 0.0.0-dev
// with the commit (and -dirty) as build metadata, a valid semantic version either way.
func TestBuildInfo_String(t *testing.T) {
	for _, tc := range []struct {
		b    BuildInfo
		want string
	}{
		{BuildInfo{Version: "v1.4.0"}, "v1.4.0"},
		{BuildInfo{Version: "(devel)"}, "0.0.0-dev"},
		{BuildInfo{Version: "(devel)", Commit: "0123456789abcdef0123"}, "0.0.0-dev+0123456789ab"},
		{BuildInfo{Version: "(devel)", Commit: "0123456789abcdef0123", Modified: true}, "0.0.0-dev+0123456789ab-dirty"},
		{BuildInfo{Version: "v1.4.1-0.20261127-abcdef+incompatible", Commit: "0123456789abcdef"}, "v1.4.1-0.20261127-abcdef+incompatible.0123456789ab"},
	} {
		if got := tc.b.String(); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.b, got, tc.want)
		}
	}
}
