package http

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"regexp"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
	"go.opentelemetry.io/otel/trace"

	"github.com/corridorhq/corridor/app/kernel"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/spend"
	"github.com/corridorhq/corridor/ports"
)

const (
	headerRequestID   = "X-Request-Id"
	headerAPIKey      = "X-Service-Api-Key" //nolint:gosec // a header name, not a credential
	headerEnvironment = "X-Corridor-Environment"
	headerIdemKey     = "Idempotency-Key"
	headerReplayed    = "Idempotent-Replayed"

	localRequestID = "requestId"
	localPrincipal = "principal"
	localEndpoint  = "route"
	// localAgentConflict marks a provisioning route: AGENT_SUSPENDED answers 409 there.
	localAgentConflict = "agentConflict"
	// localSecondary marks a request of the secondary surface: errors use its shape.
	localSecondary = "secondary"
)

var requestIDPattern = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)

// withRequestID accepts a well-formed X-Request-Id or generates one, and returns it on every
// response, errors included.
func withRequestID(c *fiber.Ctx) error {
	id := c.Get(headerRequestID)
	if !requestIDPattern.MatchString(id) {
		id = core.NewID(core.PrefixRequest)
	}
	c.Locals(localRequestID, id)
	c.Set(headerRequestID, id)
	return c.Next()
}

// resolveClientAddress decides which address the request comes from, before anything reads
// it (and, with dropForwardedOrigin, which scheme and host it was sent to): the socket's peer, unless the peer is one of the trusted proxies, in which case the
// X-Forwarded-For chain is walked from the right (the hop the nearest proxy appended) past
// every trusted proxy, and the first untrusted hop is the client. Hops to its left are the
// client's own claims and are never believed. It sets the request's remote address to the
// client, so every c.IP() (rate limits, claim-code budgets) sees the same answer, and reads
// the peer from the connection each time, so requests of different clients that share one
// proxy connection never inherit each other's address.
func resolveClientAddress(trusted []netip.Prefix) fiber.Handler {
	return func(c *fiber.Ctx) error {
		fc := c.Context()
		var peer net.Addr
		if conn := fc.Conn(); conn != nil {
			peer = conn.RemoteAddr()
		}
		if peer == nil {
			peer = fc.RemoteAddr()
		}
		peerAddr, ok := addrOf(peer)
		if !ok || !isTrusted(peerAddr, trusted) {
			fc.SetRemoteAddr(peer)
			dropForwardedOrigin(c, true)
			return c.Next()
		}
		dropForwardedOrigin(c, false)
		client := clientFromForwarded(peerAddr, forwardedHops(c), trusted)
		fc.SetRemoteAddr(&net.TCPAddr{IP: client.AsSlice()})
		return c.Next()
	}
}

// addrOf is the IP of a socket address, IPv4-mapped IPv6 unmapped.
func addrOf(a net.Addr) (netip.Addr, bool) {
	if a == nil {
		return netip.Addr{}, false
	}
	ap, err := netip.ParseAddrPort(a.String())
	if err != nil {
		return netip.Addr{}, false
	}
	return ap.Addr().Unmap(), true
}

func isTrusted(a netip.Addr, trusted []netip.Prefix) bool {
	for _, p := range trusted {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// forwardedHops are the X-Forwarded-For entries in order, across repeated headers.
// forwardedOriginHeaders are the headers through which Fiber's Protocol, Hostname and BaseURL
// believe a proxy about the scheme and host the client used.
var forwardedOriginHeaders = []string{fiber.HeaderXForwardedHost, fiber.HeaderXForwardedProto,
	fiber.HeaderXForwardedProtocol, fiber.HeaderXForwardedSsl, fiber.HeaderXUrlScheme}

// forwardedHostPattern is a host with an optional port: nothing that could carry a path,
// credentials or a second URL.
var forwardedHostPattern = regexp.MustCompile(`^[A-Za-z0-9.-]{1,253}(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]{2,45}\](:[0-9]{1,5})?$`)

// dropForwardedOrigin removes what a client says about the scheme and host it used, unless a
// trusted proxy says it (untrusted=false), and even then keeps only a scheme of http or https
// and a plain host[:port]: a javascript: scheme or a host with a path never reaches a URL the
// service builds. URLs shown to others (a checkout's payment_url, the OIDC redirect_uri) come
// from configuration anyway; this guards every other reader of c.Protocol and c.Hostname.
func dropForwardedOrigin(c *fiber.Ctx, untrusted bool) {
	h := &c.Request().Header
	if untrusted {
		for _, name := range forwardedOriginHeaders {
			h.Del(name)
		}
		return
	}
	if host := string(h.Peek(fiber.HeaderXForwardedHost)); host != "" && !forwardedHostPattern.MatchString(host) {
		h.Del(fiber.HeaderXForwardedHost)
	}
	for _, name := range []string{fiber.HeaderXForwardedProto, fiber.HeaderXForwardedProtocol, fiber.HeaderXUrlScheme} {
		if v := strings.ToLower(string(h.Peek(name))); v != "" && v != "http" && v != "https" {
			h.Del(name)
		}
	}
}

func forwardedHops(c *fiber.Ctx) []string {
	var hops []string
	for _, value := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
		for _, hop := range strings.Split(string(value), ",") {
			hops = append(hops, strings.TrimSpace(hop))
		}
	}
	return hops
}

// clientFromForwarded walks hops right to left from a trusted peer: each trusted hop hands on
// to the one before it; the first untrusted hop is the client. An entry that is not an IP ends
// the walk at the last hop vouched for; a chain of trusted hops only ends at its leftmost.
func clientFromForwarded(peer netip.Addr, hops []string, trusted []netip.Prefix) netip.Addr {
	client := peer
	for i := len(hops) - 1; i >= 0; i-- {
		hop, err := netip.ParseAddr(hops[i])
		if err != nil {
			return client
		}
		client = hop.Unmap()
		if !isTrusted(client, trusted) {
			return client
		}
	}
	return client
}

func requestID(c *fiber.Ctx) string {
	if id, ok := c.Locals(localRequestID).(string); ok {
		return id
	}
	id := core.NewID(core.PrefixRequest)
	c.Locals(localRequestID, id)
	c.Set(headerRequestID, id)
	return id
}

func endpointOf(c *fiber.Ctx) string {
	if r, ok := c.Locals(localEndpoint).(string); ok {
		return r
	}
	// Routes mounted beside the API on the same app (the console's pages) are labelled by
	// their route template, which keeps the metrics' label set bounded.
	if r := c.Route(); r != nil && r.Method != "USE" && r.Path != "/" && r.Path != "*" && r.Path != "/*" {
		return r.Path
	}
	return "unmatched"
}

func principalOf(c *fiber.Ctx) (auth.Principal, bool) {
	p, ok := c.Locals(localPrincipal).(auth.Principal)
	return p, ok
}

// withDeadline gives every request's work a deadline: a handler waiting on a slow statement
// or node gives up by then and answers 503 SERVICE_UNAVAILABLE (or CHAIN_UNAVAILABLE), and
// whatever it held, a pooled connection included, is released.
func withDeadline(timeout time.Duration) fiber.Handler {
	return func(c *fiber.Ctx) error {
		ctx, cancel := context.WithTimeout(c.UserContext(), timeout)
		defer cancel()
		c.SetUserContext(ctx)
		return c.Next()
	}
}

// recoverPanics turns a panic into the INTERNAL envelope and logs the stack.
func (s *Server) recoverPanics(c *fiber.Ctx) (err error) {
	defer func() {
		if r := recover(); r != nil {
			s.log.Error("panic", "requestId", requestID(c), "route", endpointOf(c),
				"panic", fmt.Sprint(r), "stack", string(debug.Stack()))
			err = writeError(c, s.log, core.E(core.CodeInternal, "internal error"))
		}
	}()
	return c.Next()
}

// observe logs one JSON line per request and records metrics. It logs ids, never secrets:
// no headers, no bodies, the key's pubId only.
func (s *Server) observe(c *fiber.Ctx) error {
	start := time.Now()
	if err := c.Next(); err != nil {
		_ = s.renderError(c, err)
	}
	latency := time.Since(start)
	status := c.Response().StatusCode()
	route := endpointOf(c)
	s.metrics.observe(c.Method(), route, status, latency)
	s.recordRequest(c, route, status, start, latency)
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelError
	}
	if !s.log.Enabled(c.UserContext(), level) {
		return nil
	}
	// The line's attributes are typed (LogAttrs), so none is boxed into an interface; the line
	// is the one Log with the same keys and values writes.
	var buf [8]slog.Attr
	attrs := append(buf[:0], slog.String("requestId", requestID(c)), slog.String("method", c.Method()),
		slog.String("route", route), slog.Int("status", status), slog.Float64("latencyMs", float64(latency.Microseconds())/1000))
	if p, ok := principalOf(c); ok {
		attrs = append(attrs, slog.String("principal", p.LogID()), slog.String("tenantId", p.TenantID))
	}
	if sc := trace.SpanContextFromContext(c.UserContext()); sc.IsValid() {
		attrs = append(attrs, slog.String("traceId", sc.TraceID().String()))
	}
	s.log.LogAttrs(c.UserContext(), level, "request", attrs...)
	return nil
}

// authenticate resolves the caller. mode "required" refuses anonymous callers; "optional"
// authenticates when credentials are present (a bad key is still 401).
func (s *Server) authenticate(required bool) fiber.Handler {
	return func(c *fiber.Ctx) error {
		p, present, err := s.principalFromHeaders(c)
		if err != nil {
			// Failed credentials are limited per client IP, so a flood of guesses is throttled
			// before the database sees all of it.
			if limited := s.limitAnonymous(c); limited != nil {
				return limited
			}
			return err
		}
		if !present {
			if limited := s.limitAnonymous(c); limited != nil {
				return limited
			}
			if required {
				return core.E(core.CodeUnauthenticated, "missing credentials: send X-Service-Api-Key or Authorization: Bearer <session token>")
			}
			return c.Next()
		}
		c.Locals(localPrincipal, p)
		// The ledger's debit path reads the caller from the context (the spend guard), so a
		// debit posted by any route is put to the rule on the caller's behalf.
		ctx := spend.WithActor(c.UserContext(), p)
		if p.TenantID != "" {
			// A tenant's units of work lock the tenant's rows: the commit pipeline runs them in
			// one lane, so they share batches instead of meeting each other's locks.
			ctx = ports.WithAffinity(ctx, p.TenantID)
		}
		c.SetUserContext(ctx)
		return c.Next()
	}
}

func (s *Server) principalFromHeaders(c *fiber.Ctx) (auth.Principal, bool, error) {
	if key := c.Get(headerAPIKey); key != "" {
		p, err := s.authn.AuthenticateKey(c.UserContext(), key)
		return p, true, err
	}
	authz := c.Get(fiber.HeaderAuthorization)
	if authz == "" {
		return auth.Principal{}, false, nil
	}
	token, ok := strings.CutPrefix(authz, "Bearer ")
	if !ok || strings.TrimSpace(token) == "" {
		return auth.Principal{}, true, core.E(core.CodeUnauthenticated, "Authorization must be \"Bearer <session token>\"")
	}
	if strings.HasPrefix(strings.TrimSpace(token), auth.KeyPrefix+"_") {
		// An API key sent the way other payment APIs take theirs: say where it goes rather than
		// report a bad session token. The key is not tried, so nothing about it is revealed.
		return auth.Principal{}, true, core.E(core.CodeUnauthenticated,
			"an API key (csk_…) goes in the X-Service-Api-Key header; Authorization: Bearer takes a session token")
	}
	env := core.EnvTest
	if h := c.Get(headerEnvironment); h != "" {
		parsed, ok := core.ParseEnvironment(h)
		if !ok {
			return auth.Principal{}, true, core.Invalid(headerEnvironment, "must be test or live")
		}
		env = parsed
	}
	p, err := s.authn.AuthenticateSession(c.UserContext(), strings.TrimSpace(token), env)
	return p, true, err
}

// runUnit runs a POST in the use-case shape through the kernel runner: first (the route's
// prepare) outside any transaction, then the step it returns inside the runner's one unit of
// work, with or without an Idempotency-Key (the key decides replay, never where the unit
// sits). secretFields are stored (and so replayed) as null.
func (s *Server) runUnit(secretFields []string, first prepare) fiber.Handler {
	return func(c *fiber.Ctx) error {
		req, err := unitRequest(c)
		if err != nil {
			return err
		}
		// The request's context carries the prepared answers the step's unit recalls.
		c.SetUserContext(kernel.WithPrepared(c.UserContext()))
		out, replayed, err := s.idempotency.Run(c.UserContext(), req, func(ctx context.Context) (kernel.Apply, error) {
			then, err := first(c)
			if err != nil {
				return nil, err
			}
			// The unit of work may run more than once (a retried deadlock, a pipeline batch's
			// unit run again): every run starts from the response as prepare left it, and calls
			// the step itself (Fiber's c.Next advances past it and cannot run it twice).
			var before fasthttp.ResponseHeader
			c.Response().Header.CopyTo(&before)
			return func(ctx context.Context) (kernel.Outcome, error) {
				before.CopyTo(&c.Response().Header)
				c.Response().ResetBody()
				c.SetUserContext(ctx)
				if err := then(c); err != nil {
					if kernel.MustRunAgain(err) {
						return kernel.Outcome{}, err // the store runs the whole unit again
					}
					_ = writeError(c, s.log, err)
				}
				return outcomeOf(c, secretFields), nil
			}, nil
		})
		if err != nil {
			return err
		}
		c.Status(out.StatusCode)
		c.Set(fiber.HeaderContentType, out.ContentType)
		c.Response().SetBodyRaw(out.Body)
		if replayed {
			c.Set(headerReplayed, "true")
		}
		return nil
	}
}

// outcomeOf is the response the step wrote, as the runner stores it for replay.
func outcomeOf(c *fiber.Ctx, secretFields []string) kernel.Outcome {
	resp := c.Response()
	out := kernel.Outcome{StatusCode: resp.StatusCode(), Body: append([]byte(nil), resp.Body()...),
		ContentType: string(resp.Header.ContentType())}
	if len(secretFields) > 0 {
		out.StoredBody = nullFields(out.Body, secretFields)
	}
	out.Retryable = RetryableRefusal(errorCode(out.Body, out.StatusCode), out.StatusCode)
	return out
}

// unitRequest identifies the request under its Idempotency-Key; without one (or for an
// anonymous write, whose key is ignored) the request has no key and is never stored.
func unitRequest(c *fiber.Ctx) (kernel.IdempotentRequest, error) {
	key := c.Get(headerIdemKey)
	if key == "" {
		return kernel.IdempotentRequest{}, nil
	}
	if err := kernel.ValidateIdempotencyKey(key); err != nil {
		return kernel.IdempotentRequest{}, err
	}
	// An anonymous write (a claim link's phone code, an invite accepted without a session)
	// is never stored: anyone on the Internet could otherwise fill the table, and a replayed
	// answer would skip the budgets those routes count. The key is ignored.
	req, _ := idempotentRequest(c, key)
	return req, nil
}

// errorCode is the code of an error envelope (empty for a success or a body that is not one).
func errorCode(body []byte, status int) core.Code {
	if status < 400 {
		return ""
	}
	var env struct {
		Code string `json:"code"`
	}
	if json.Unmarshal(body, &env) != nil {
		return ""
	}
	return core.Code(env.Code)
}

// idempotentRequest identifies the request under its Idempotency-Key: the credential and its
// tenant scope the key. ok is false for an anonymous request, which is never stored.
func idempotentRequest(c *fiber.Ctx, key string) (kernel.IdempotentRequest, bool) {
	p, ok := principalOf(c)
	if !ok {
		return kernel.IdempotentRequest{}, false
	}
	// The credential is part of the request: another key of the same tenant reusing the
	// Idempotency-Key is a different request (422), never a replay of this one's response.
	req := kernel.IdempotentRequest{Key: key, Fingerprint: fingerprintWith(fingerprint(c), p.LogID()),
		Environment: p.Environment, Scope: "tenant:" + p.TenantID}
	if p.TenantID == "" {
		req.Scope = "user:" + p.UserID
	}
	return req, true
}

// fingerprint hashes the method, the path and the canonical JSON body, so whitespace and key
// order do not make a retry look like a different request.
func fingerprint(c *fiber.Ctx) string {
	h := sha256.New()
	h.Write([]byte(c.Method() + " " + c.Path() + "\n"))
	h.Write(canonicalJSON(requestBody(c)))
	return hex.EncodeToString(h.Sum(nil))
}

func fingerprintWith(fp, principal string) string {
	sum := sha256.Sum256([]byte(fp + "\n" + principal))
	return hex.EncodeToString(sum[:])
}

// nullFields is body with the values of its top-level fields named in fields replaced by
// null, everything else byte for byte as written (a replay keeps the first answer's field
// order); a body that is not a JSON object is returned as it is.
func nullFields(body []byte, fields []string) []byte {
	dec := json.NewDecoder(bytes.NewReader(body))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return body
	}
	var out []byte
	last := 0
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return body
		}
		var value json.RawMessage
		if err := dec.Decode(&value); err != nil {
			return body
		}
		if key, _ := t.(string); slices.Contains(fields, key) {
			end := int(dec.InputOffset())
			out = append(append(out, body[last:end-len(value)]...), "null"...)
			last = end
		}
	}
	return append(out, body[last:]...)
}

func canonicalJSON(body []byte) []byte {
	if len(bytes.TrimSpace(body)) == 0 {
		// The decoder reads an empty body as {} (decodeJSON), so the two are one request.
		return []byte("{}")
	}
	if alreadyCanonical(body) {
		return body
	}
	return remarshalJSON(body)
}

// remarshalJSON is the canonical form the long way: the body decoded (numbers as written) and
// encoded again by encoding/json; a body that does not decode is its own form.
func remarshalJSON(body []byte) []byte {
	var v any
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return body
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

// retryAfter formats a delay as whole seconds, at least 1.
func retryAfter(d time.Duration) string {
	secs := int((d + time.Second - 1) / time.Second)
	if secs < 1 {
		secs = 1
	}
	return strconv.Itoa(secs)
}
