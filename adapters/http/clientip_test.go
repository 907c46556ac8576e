package http

import (
	"io"
	"net"
	nethttp "net/http"
	"net/netip"
	"testing"

	"github.com/gofiber/fiber/v2"
)

// ipServer serves GET /ip answering c.IP(), behind resolveClientAddress, on loopback: the
// test's requests come from 127.0.0.1.
func ipServer(t *testing.T, trusted []netip.Prefix) string {
	t.Helper()
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(resolveClientAddress(trusted))
	app.Get("/ip", func(c *fiber.Ctx) error { return c.SendString(c.IP()) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String() + "/ip"
}

func ipAsSeen(t *testing.T, client *nethttp.Client, url string, forwardedFor ...string) string {
	t.Helper()
	req, err := nethttp.NewRequest(nethttp.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range forwardedFor {
		req.Header.Add("X-Forwarded-For", v)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// TestClientIP_ForwardedForFromUntrustedPeer: with no trusted proxy, or a peer outside the
// trusted networks, X-Forwarded-For is ignored and the socket's peer is the client.
func TestClientIP_ForwardedForFromUntrustedPeer(t *testing.T) {
	for name, trusted := range map[string][]netip.Prefix{
		"no trusted proxies":       nil,
		"peer outside the proxies": {netip.MustParsePrefix("10.0.0.0/8")},
	} {
		t.Run(name, func(t *testing.T) {
			url := ipServer(t, trusted)
			if got := ipAsSeen(t, nethttp.DefaultClient, url, "203.0.113.9"); got != "127.0.0.1" {
				t.Fatalf("client IP %q, want the peer 127.0.0.1", got)
			}
		})
	}
}

// TestClientIP_ForwardedForFromTrustedProxy: from a trusted proxy the rightmost untrusted hop
// is the client, so an address the client itself put in the header is never believed, and
// each request on a kept-alive proxy connection gets its own answer.
func TestClientIP_ForwardedForFromTrustedProxy(t *testing.T) {
	url := ipServer(t, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("10.0.0.0/8")})
	client := &nethttp.Client{Transport: &nethttp.Transport{MaxConnsPerHost: 1}}
	defer client.CloseIdleConnections()
	for _, tc := range []struct {
		name   string
		header []string
		want   string
	}{
		{"the hop the proxy appended", []string{"203.0.113.9"}, "203.0.113.9"},
		{"a spoofed hop left of the real one", []string{"1.2.3.4, 203.0.113.9"}, "203.0.113.9"},
		{"trusted hops are skipped", []string{"198.51.100.7, 10.1.2.3"}, "198.51.100.7"},
		{"repeated headers read in order", []string{"1.2.3.4", "198.51.100.8, 10.0.0.1"}, "198.51.100.8"},
		{"no header: the proxy itself", nil, "127.0.0.1"},
		{"garbage ends the walk at the last vouched hop", []string{"198.51.100.7, not-an-ip, 10.1.2.3"}, "10.1.2.3"},
		{"IPv6 client", []string{"2001:db8::1"}, "2001:db8::1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ipAsSeen(t, client, url, tc.header...); got != tc.want {
				t.Fatalf("client IP %q, want %q", got, tc.want)
			}
		})
	}
}

// originServer serves GET /origin answering c.BaseURL(), behind resolveClientAddress.
func originServer(t *testing.T, trusted []netip.Prefix) string {
	t.Helper()
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(resolveClientAddress(trusted))
	app.Get("/origin", func(c *fiber.Ctx) error { return c.SendString(c.BaseURL()) })
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go func() { _ = app.Listener(ln) }()
	t.Cleanup(func() { _ = app.Shutdown() })
	return "http://" + ln.Addr().String()
}

func originAsSeen(t *testing.T, base string, headers map[string]string) string {
	t.Helper()
	req, err := nethttp.NewRequest(nethttp.MethodGet, base+"/origin", nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := nethttp.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(body)
}

// TestForwardedOrigin_OnlyFromTrustedProxies: X-Forwarded-Host and -Proto change the origin the
// service sees only when a trusted proxy sends them, and even then only a scheme of http or
// https and a plain host[:port] are believed.
func TestForwardedOrigin_OnlyFromTrustedProxies(t *testing.T) {
	evil := map[string]string{"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "javascript", "X-Url-Scheme": "javascript"}
	untrusted := originServer(t, nil)
	if got := originAsSeen(t, untrusted, evil); got != untrusted {
		t.Fatalf("untrusted peer: origin %q, want %q", got, untrusted)
	}
	if got := originAsSeen(t, untrusted, map[string]string{"X-Forwarded-Proto": "https", "X-Forwarded-Ssl": "on"}); got != untrusted {
		t.Fatalf("untrusted peer's https claim: origin %q", got)
	}
	trusted := originServer(t, []netip.Prefix{netip.MustParsePrefix("127.0.0.0/8")})
	if got := originAsSeen(t, trusted, map[string]string{"X-Forwarded-Host": "pay.example.com", "X-Forwarded-Proto": "https"}); got != "https://pay.example.com" {
		t.Fatalf("trusted proxy: origin %q", got)
	}
	if got := originAsSeen(t, trusted, evil); got != "http://evil.example" {
		t.Fatalf("trusted proxy with a javascript scheme: origin %q, want the scheme dropped", got)
	}
	if got := originAsSeen(t, trusted, map[string]string{"X-Forwarded-Host": "evil.example/path?x="}); got != trusted {
		t.Fatalf("trusted proxy with a host carrying a path: origin %q, want it dropped", got)
	}
}
