package webhook

import (
	"strings"
	"testing"
	"time"
)

// FuzzVerify: whatever header arrives, Verify never panics, accepts the header Sign makes, and
// accepts another header only when it carries that same signature and timestamp (a header the
// parser reads generously never passes on a signature it does not hold).
func FuzzVerify(f *testing.F) {
	now := time.Unix(1_800_000_000, 0)
	good := Sign("whsec_test", now, []byte(`{"id":"evt_1"}`))
	for _, h := range []string{good, "", "t=,v1=", "t=1800000000", "v1=00", "t=1800000000,v1=zz,v1=" + good[len("t=1800000000,v1="):],
		" t = 1800000000 , v1=abc", "t=-1,v1=00", "t=99999999999999999999,v1=00", ",,,=,=="} {
		f.Add(h, []byte(`{"id":"evt_1"}`))
	}
	f.Fuzz(func(t *testing.T, header string, body []byte) {
		signed := Sign("whsec_test", now, body)
		if !Verify("whsec_test", signed, body, now, 5*time.Minute) {
			t.Fatalf("Verify refused Sign's own header %q", signed)
		}
		if !Verify("whsec_test", header, body, now, 5*time.Minute) {
			return
		}
		sig := signed[strings.Index(signed, "v1=")+3:]
		if !strings.Contains(strings.ToLower(header), sig) {
			t.Fatalf("Verify accepted %q without the signature %s", header, sig)
		}
	})
}
