package console

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/adapters/identity"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// oidcServer starts a service whose sessions come from an OIDC provider and whose console
// signs members in there, with a tenant owned by a provider user.
func oidcServer(t *testing.T) (*harness.Env, *harness.OIDCProvider, string) {
	t.Helper()
	prov := harness.NewOIDCProvider(t)
	verifier, err := identity.NewOIDC(context.Background(), identity.OIDCConfig{Issuer: prov.Issuer(), Audience: prov.Audience, MaxTokenLifetime: 2 * time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(verifier.Close)
	flow, err := identity.NewCodeFlow(identity.CodeFlowConfig{Issuer: prov.Issuer(), ClientID: prov.ClientID, ClientSecret: prov.ClientSecret, Audience: prov.Audience})
	if err != nil {
		t.Fatal(err)
	}
	srv := harness.NewServer(t, func(c *wiring.Config) {
		c.Identity, c.ConsoleSignIn, c.ConsoleSignInIssuer = verifier, flow, prov.Issuer()
	})
	subject := "oidc|" + strings.ReplaceAll(t.Name(), "/", "-") + time.Now().Format("-150405.000000")
	owner := srv.Client(t).WithSession(prov.Token(subject, "owner@corridor.test"))
	tenantID := owner.Post("/v1/tenants", map[string]any{"name": "OIDC tenant " + time.Now().Format("150405.000000")}).Expect(t, 201).JSON(t)["id"].(string)
	prov.SignInAs(subject, "owner@corridor.test")
	return srv, prov, tenantID
}

// TestConsoleOIDC_SignIn: the sign-in page offers the provider; following it through the
// provider (code flow with PKCE, state and nonce, the client's secret) signs the member in with a token the
// API's verifier accepts, in the environment chosen. A callback whose state this browser was
// not given, a refusal at the provider and a code used twice sign nobody in.
func TestConsoleOIDC_SignIn(t *testing.T) {
	t.Parallel()
	srv, prov, tenantID := oidcServer(t)
	v := srv.ConsoleVisitor(t)
	page := func(path string) (int, string, *url.URL) {
		t.Helper()
		p, at := v.Follow(path)
		return p.Status, p.Body, at
	}

	if status, body, _ := page("/console/signin"); status != 200 || !strings.Contains(body, `href="/console/signin/oidc?environment=test"`) {
		t.Fatalf("sign-in page: %d %s", status, body)
	}
	// The whole round trip: to the provider, back with a code, exchanged, signed in.
	status, body, at := page("/console/signin/oidc?environment=live")
	if status != 200 || !strings.Contains(body, `id="signed-in"`) || at.Path != "/console/signin/oidc/callback" {
		t.Fatalf("callback: %d at %s: %s", status, at, body)
	}
	auth := prov.Last["/authorize"]
	if auth.Get("code_challenge") == "" || auth.Get("state") == "" || auth.Get("nonce") == "" || auth.Get("audience") != prov.Audience ||
		auth.Get("redirect_uri") != srv.BaseURL+"/console/signin/oidc/callback" {
		t.Fatalf("authorization request: %v", auth)
	}
	if tok := prov.Last["/token"]; tok.Get("code_verifier") == "" || tok.Get("client_secret") != prov.ClientSecret {
		t.Fatalf("token request: %v", tok)
	}
	status, body, _ = page("/console/")
	if status != 200 || !strings.Contains(body, tenantID) || !strings.Contains(body, "LIVE") {
		t.Fatalf("console after the provider's sign-in: %d %s", status, body)
	}

	// A callback this browser did not start (another state), and the same code again.
	replay := "/console/signin/oidc/callback?" + url.Values{"state": {"forged"}, "code": {"whatever"}}.Encode()
	if status, _, _ := page(replay); status != http.StatusForbidden {
		t.Fatalf("forged callback: %d", status)
	}
	v.Forget()
	prov.Deny("access_denied")
	if status, body, _ := page("/console/signin/oidc?environment=test"); status != http.StatusUnauthorized || !strings.Contains(body, "access_denied") {
		t.Fatalf("refused at the provider: %d %s", status, body)
	}
	if status, _, at := page("/console/"); status != 200 || at.Path != "/console/signin" {
		t.Fatalf("after a refusal the console is at %s (%d), not the sign-in page", at, status)
	}
}

// TestConsoleOIDC_Browser: in headless Chromium a member clicks "Sign in to TEST", goes
// through the provider and lands on the console's overview, then signs out.
func TestConsoleOIDC_Browser(t *testing.T) {
	t.Parallel()
	srv, _, tenantID := oidcServer(t)
	ctx := harness.Browser(t)
	var header string
	run(t, ctx, "sign in at the provider",
		chromedp.Navigate(srv.BaseURL+"/console/signin"),
		chromedp.WaitVisible("#oidc-test", chromedp.ByID),
		chromedp.Click("#oidc-test", chromedp.ByID),
		chromedp.WaitVisible("#balances", chromedp.ByID),
		chromedp.Text("body", &header, chromedp.ByQuery),
	)
	if !strings.Contains(header, tenantID) {
		t.Fatalf("the overview does not name the tenant %s: %s", tenantID, header)
	}
}

// TestConsoleOIDC_RedirectURIFromConfiguration: the redirect_uri sent to the provider is built
// from the configured public origin, never from the request's X-Forwarded-* headers, so a crafted
// request cannot make the provider send a code elsewhere.
func TestConsoleOIDC_RedirectURIFromConfiguration(t *testing.T) {
	t.Parallel()
	srv, _, _ := oidcServer(t)
	v := srv.ConsoleVisitor(t)
	v.Headers = map[string]string{"X-Forwarded-Host": "evil.example", "X-Forwarded-Proto": "https"}
	p := v.Get("/console/signin/oidc?environment=test")
	to, err := url.Parse(p.Header.Get("Location"))
	if err != nil || p.Status/100 != 3 {
		t.Fatalf("start of sign-in: %d to %q", p.Status, p.Header.Get("Location"))
	}
	if got := to.Query().Get("redirect_uri"); got != srv.BaseURL+"/console/signin/oidc/callback" {
		t.Fatalf("redirect_uri %q follows the request's headers, want the configured origin %s", got, srv.BaseURL)
	}
}
