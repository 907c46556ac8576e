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
		"fe80::1": true, "0.0.0.0": true, "::ffff:127.0.0.1": true, "8.8.8.8": false, "2606:4700::1111": false,
		// Every spelling of an internal address, classified by the parsed address.
		"2002:7f00:1::1":       true,  // 6to4 of 127.0.0.1
		"2002:808:808::1":      true,  // 6to4 of a public address: 6to4 is refused whole
		"::127.0.0.1":          true,  // IPv4-compatible
		"::8.8.8.8":            true,  // IPv4-compatible (deprecated) of a public address
		"64:ff9b::7f00:1":      true,  // NAT64 of 127.0.0.1
		"64:ff9b:1::7f00:1":    true,  // local-use NAT64
		"0.0.0.1":              true,  // "this network"
		"::ffff:8.8.8.8":       false, // IPv4-mapped public address: the IPv4 address decides
		"::ffff:169.254.1.1":   true,
		"2001::1":              true, // Teredo
		"2001:db8::1":          true, // documentation
		"192.0.2.1":            true, // TEST-NET-1
		"198.18.0.1":           true, // benchmarking
		"100.100.100.100":      true, // shared address space
		"224.0.0.1":            true, // multicast
		"255.255.255.255":      true, // broadcast (reserved)
		"ff02::1":              true, // multicast
		"::":                   true, // unspecified
		"::1":                  true,
		"192.88.99.1":          true, // 6to4 relay anycast
		"1.1.1.1":              false,
		"2a00:1450:4001::200e": false,
	} {
		if got := Internal(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Internal(%s) = %v, want %v", addr, got, want)
		}
	}
}
