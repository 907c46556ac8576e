package webhook

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"testing"
	"time"
)

func TestSender_RefusesInternalDestinations(t *testing.T) {
	var hits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { hits++ }))
	defer srv.Close()
	s := New(2 * time.Second)
	ctx := context.Background()
	localhost := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	for _, u := range []string{srv.URL, localhost, "http://10.1.2.3/x", "http://169.254.169.254/latest", "http://[::1]:9/", "http://192.168.0.1/", "http://100.64.0.1/"} {
		if _, err := s.Send(ctx, u, []byte("{}"), nil, false); !errors.Is(err, ErrDestinationRefused) {
			t.Errorf("Send(%s) = %v, want refused", u, err)
		}
	}
	if hits != 0 {
		t.Fatalf("a refused destination was reached %d times", hits)
	}
	// The TEST allowance reaches a local receiver.
	if status, err := s.Send(ctx, srv.URL, []byte("{}"), nil, true); err != nil || status != 200 || hits != 1 {
		t.Fatalf("allowed Send = %d, %v (hits %d)", status, err, hits)
	}
}

func TestSender_DialerRefusesInternalAddressAfterResolution(t *testing.T) {
	// The guarded client alone (no pre-check) must refuse the connection: this is what defeats
	// a DNS answer that changes between the check and the dial.
	srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	s := New(2 * time.Second)
	req, _ := http.NewRequest(http.MethodPost, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1), nil)
	if _, err := s.guarded.Do(req); err == nil || !errors.Is(err, ErrDestinationRefused) {
		t.Fatalf("guarded dial = %v, want refused", err)
	}
}

func TestInternal(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1": true, "10.0.0.1": true, "172.16.0.1": true, "fd00::1": true,
		"fe80::1": true, "0.0.0.0": true, "::ffff:127.0.0.1": true, "8.8.8.8": false, "2606:4700::1111": false} {
		if got := Internal(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Internal(%s) = %v, want %v", addr, got, want)
		}
	}
}
