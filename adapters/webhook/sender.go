// Package webhook is the outbound HTTP sender of webhook deliveries. It refuses destinations
// inside the service's network (SSRF): only http(s) URLs, and never a loopback, private,
// link-local, shared, multicast or unspecified address unless the caller allows them (local
// receivers in TEST). Every address a host resolves to is checked before sending, and the
// dialer checks the address it actually connects to, so a DNS answer that changes between the
// check and the connection (rebinding) is refused too.
package webhook

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"code.dny.dev/ssrf"

	"github.com/corridorhq/corridor/app/webhooks"
)

var _ webhooks.Sender = (*Sender)(nil)

// ErrDestinationRefused is returned for a URL that points inside the network.
var ErrDestinationRefused = errors.New("destination refused: loopback, private and link-local addresses are not allowed")

// maxDrain bounds how much of a receiver's answer is read (and discarded).
const maxDrain = 64 << 10

// Sender posts deliveries with two HTTP clients: one whose dialer refuses internal addresses
// and one (for allowed local receivers) whose dialer does not.
type Sender struct {
	guarded, open *http.Client
	resolver      *net.Resolver
}

// New builds the sender; timeout bounds one request.
func New(timeout time.Duration) *Sender {
	return &Sender{guarded: client(timeout, true), open: client(timeout, false), resolver: net.DefaultResolver}
}

func client(timeout time.Duration, guard bool) *http.Client {
	dialer := &net.Dialer{Timeout: timeout}
	if guard {
		dialer.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil || Internal(ap.Addr()) {
				return ErrDestinationRefused
			}
			return nil
		}
	}
	transport := &http.Transport{Proxy: nil, DialContext: dialer.DialContext, TLSHandshakeTimeout: timeout,
		ResponseHeaderTimeout: timeout, MaxIdleConnsPerHost: 2, IdleConnTimeout: 30 * time.Second}
	return &http.Client{Transport: transport, Timeout: timeout,
		// A redirect is an answer, not a 2xx: it is not followed (it could point anywhere).
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// Internal reports whether addr is one a webhook must never reach in LIVE. The address is
// classified as parsed, whatever its spelling: an IPv4-mapped IPv6 address is its IPv4 address;
// every other IPv6 address outside global unicast (IPv4-compatible ::a.b.c.d, NAT64's
// 64:ff9b::/96 and 64:ff9b:1::/48, loopback, ULA, link-local, multicast) is refused; inside it,
// 6to4, Teredo, documentation and the IETF protocol assignments are refused; IPv4 follows the
// IANA special-purpose registry (0.0.0.0/8, private, shared, loopback, link-local, TEST-NETs,
// benchmarking, multicast, reserved). The ranges come from the kept ssrf package
// (code.dny.dev/ssrf), which generates them from the IANA registries.
func Internal(addr netip.Addr) bool {
	if !addr.IsValid() {
		return true
	}
	return guardian.SafeAddr(addr.Unmap()) != nil
}

// guardian holds the special-purpose ranges; only its address check is used (ports are free).
var guardian = ssrf.New(ssrf.WithAnyPort())

// CheckDestination resolves the URL's host and refuses it when any address is internal.
func (s *Sender) CheckDestination(ctx context.Context, rawURL string, allowPrivate bool) error {
	u, err := url.Parse(rawURL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Hostname() == "" {
		return errors.New("an absolute http or https URL")
	}
	if allowPrivate {
		return nil
	}
	host := u.Hostname()
	if addr, err := netip.ParseAddr(host); err == nil {
		if Internal(addr) {
			return ErrDestinationRefused
		}
		return nil
	}
	addrs, err := s.resolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("the host %q does not resolve", host)
	}
	for _, a := range addrs {
		if Internal(a) {
			return ErrDestinationRefused
		}
	}
	return nil
}

// Send posts body and returns the receiver's status.
func (s *Sender) Send(ctx context.Context, rawURL string, body []byte, headers map[string]string, allowPrivate bool) (int, error) {
	if err := s.CheckDestination(ctx, rawURL, allowPrivate); err != nil {
		return 0, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, rawURL, bytes.NewReader(body))
	if err != nil {
		return 0, err
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	c := s.guarded
	if allowPrivate {
		c = s.open
	}
	resp, err := c.Do(req)
	if err != nil {
		if errors.Is(err, ErrDestinationRefused) {
			return 0, ErrDestinationRefused
		}
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxDrain))
	return resp.StatusCode, nil
}
