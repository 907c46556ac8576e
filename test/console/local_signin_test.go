package console

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/wiring"
)

// TestConsoleBrowserLocalOwnerSignIn: a local run (ConsoleLocalOwner) offers one click that
// signs the quickstart's user in to TEST, into the tenant that user owns, with no token pasted.
func TestConsoleBrowserLocalOwnerSignIn(t *testing.T) {
	srv := harness.NewServer(t, func(c *wiring.Config) { c.ConsoleLocalOwner = true })
	token, err := srv.Issuer.IssueSession(wiring.LocalOwnerUser, wiring.LocalOwnerEmail, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	name := "Local Owner Tenant " + time.Now().Format("150405.000000")
	tenantID := srv.Client(t).WithSession(token).Post("/v1/tenants", map[string]any{"name": name}).Expect(t, 201).JSON(t)["id"].(string)

	ctx := harness.Browser(t)
	var header string
	run(t, ctx, "one-click sign-in",
		chromedp.Navigate(srv.BaseURL+"/console/signin"),
		chromedp.WaitVisible("#local-signin", chromedp.ByID),
		chromedp.Click("#local-signin", chromedp.ByID),
		chromedp.WaitVisible("nav", chromedp.ByQuery),
		chromedp.Text("body", &header, chromedp.ByQuery),
	)
	if !strings.Contains(header, wiring.LocalOwnerEmail+" · OWNER · "+tenantID) || !strings.Contains(header, "TEST") {
		t.Fatalf("after one click the console shows:\n%s", header)
	}
}

// TestConsole_NoLocalOwnerSignInByDefault: a deployment (not a local run) neither offers the
// one-click sign-in nor has its route.
func TestConsole_NoLocalOwnerSignInByDefault(t *testing.T) {
	t.Parallel()
	v := env().ConsoleVisitor(t)
	if p := v.Get("/console/signin"); strings.Contains(p.Body, "local-signin") {
		t.Fatal("the sign-in page offers the local owner's sign-in")
	}
	// No such route: the member pages' guard answers it, and nobody is signed in.
	if p := v.Post("/console/signin/local", nil, true); p.Status == 303 || p.Status == 200 {
		t.Fatalf("POST /console/signin/local answered %d", p.Status)
	}
	if p := v.Get("/console/"); strings.Contains(p.Body, "OWNER") {
		t.Fatal("a POST to the local sign-in signed someone in")
	}
}
