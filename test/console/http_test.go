package console

import (
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/corridorhq/corridor/adapters/console"
	"github.com/corridorhq/corridor/test/harness"
)

func keyTotal(t *testing.T, ten *harness.Tenant) float64 {
	t.Helper()
	return ten.Root.Get("/v1/api-keys").Expect(t, 200).JSON(t)["total"].(float64)
}

func TestConsole_SignInRequiredAndRefusesBadTokens(t *testing.T) {
	t.Parallel()
	v := env().ConsoleVisitor(t)
	if p := v.Get("/console/keys"); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/signin" {
		t.Fatalf("anonymous page: %d %q", p.Status, p.Header.Get("Location"))
	}
	v.Get("/console/signin")
	p := v.Post("/console/signin", url.Values{"token": {"not-a-token"}, "environment": {"test"}}, true)
	if p.Status != http.StatusUnauthorized || !strings.Contains(p.Body, "refused this session token") {
		t.Fatalf("bad token: %d %s", p.Status, p.Body)
	}
	// A forged session cookie (the signature does not match) is no session.
	v.SetCookies([]*http.Cookie{{Name: "corridor_console", Value: "eyJ0IjoieCIsIm4iOiJ5In0.AAAA", Path: "/console"}})
	if p := v.Get("/console/balances"); p.Status != http.StatusSeeOther {
		t.Fatalf("forged cookie: %d", p.Status)
	}
}

func TestConsole_CSRF(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	before := keyTotal(t, ten)

	// No token, a wrong token, and another session's token are all refused, and create nothing.
	if p := v.Post("/console/keys", url.Values{"name": {"no csrf"}}, false); p.Status != http.StatusForbidden || !strings.Contains(p.Body, "CSRF") {
		t.Fatalf("POST without a CSRF token: %d %s", p.Status, p.Body)
	}
	if p := v.Post("/console/keys", url.Values{"name": {"bad csrf"}, "_csrf": {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"}}, false); p.Status != http.StatusForbidden {
		t.Fatalf("POST with a wrong CSRF token: %d", p.Status)
	}
	other := env().ConsoleVisitor(t)
	other.SignIn(ten.SessionToken)
	if p := v.Post("/console/keys", url.Values{"name": {"other csrf"}, "_csrf": {other.CSRF}}, false); p.Status != http.StatusForbidden {
		t.Fatalf("POST with another session's CSRF token: %d", p.Status)
	}
	if p := v.Post("/console/signout", nil, false); p.Status != http.StatusForbidden {
		t.Fatalf("sign out without a CSRF token: %d", p.Status)
	}
	if after := keyTotal(t, ten); after != before {
		t.Fatalf("a refused form created keys: %v → %v", before, after)
	}
	// The sign-in form is protected too: its token is tied to its own cookie.
	fresh := env().ConsoleVisitor(t)
	if p := fresh.Post("/console/signin", url.Values{"token": {ten.SessionToken}, "environment": {"test"}}, false); p.Status != http.StatusForbidden {
		t.Fatalf("sign in without a CSRF token: %d", p.Status)
	}
	// With the token, the same form works.
	v.Get("/console/keys")
	if p := v.Post("/console/keys", url.Values{"name": {"with csrf"}, "scopes": {"wallets:read"}}, true); p.Status != http.StatusSeeOther {
		t.Fatalf("POST with the CSRF token: %d %s", p.Status, p.Body)
	}
	if after := keyTotal(t, ten); after != before+1 {
		t.Fatalf("keys %v → %v, want one more", before, after)
	}
}

var (
	inlineScript = regexp.MustCompile(`<script(?:\s[^>]*)?>\s*[^<\s]`)
	styleAttr    = regexp.MustCompile(`\sstyle=`)
	scriptTag    = regexp.MustCompile(`<script[^>]*>`)
)

func TestConsole_ContentSecurityPolicy(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "12.5"}).Expect(t, 201)
	ep := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/csp", "events": []string{"*"}}).Expect(t, 201).JSON(t)
	bal := ten.Root.Get("/v1/balances").Expect(t, 200).JSON(t)
	account, _ := bal["balances"].([]any)[0].(map[string]any)["accountId"].(string)
	v := env().ConsoleVisitor(t)
	signin := v.Get("/console/signin")
	v.SignIn(ten.SessionToken)
	pages := map[string]*harness.ConsolePage{"/console/signin": signin}
	for _, path := range []string{"/console/webhooks/" + ep["id"].(string), "/console/accounts/" + account, "/console/balances", "/console/keys", "/console/webhooks", "/console/events", "/console/wallets",
		"/console/payments", "/console/offramp", "/console/cards", "/console/agents", "/console/entries", "/console/accounts",
		"/console/trial-balance", "/console/reconciliation", "/console/static/console.css", "/console/static/console.js"} {
		pages[path] = v.Get(path)
	}
	for path, p := range pages {
		if p.Status != 200 {
			t.Errorf("%s: %d\n%s", path, p.Status, p.Body)
		}
		if got := p.Header.Get("Content-Security-Policy"); got != console.ContentSecurityPolicy {
			t.Errorf("%s: Content-Security-Policy %q", path, got)
		}
		if p.Header.Get("X-Frame-Options") != "DENY" || p.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("%s: framing or sniffing headers missing: %v", path, p.Header)
		}
		if strings.HasSuffix(path, ".css") || strings.HasSuffix(path, ".js") {
			continue
		}
		if inlineScript.MatchString(p.Body) || styleAttr.MatchString(p.Body) || strings.Contains(p.Body, "<style") {
			t.Errorf("%s: inline script or style, which the policy would block", path)
		}
		for _, tag := range scriptTag.FindAllString(p.Body, -1) {
			if !strings.Contains(tag, `src="/console/static/`) {
				t.Errorf("%s: script not from the console's static files: %s", path, tag)
			}
		}
		if p.Header.Get("Cache-Control") != "no-store" {
			t.Errorf("%s: Cache-Control %q", path, p.Header.Get("Cache-Control"))
		}
	}
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "style-src 'self'", "frame-ancestors 'none'", "form-action 'self'"} {
		if !strings.Contains(console.ContentSecurityPolicy, want) {
			t.Errorf("the policy lacks %s", want)
		}
	}
	if strings.Contains(console.ContentSecurityPolicy, "unsafe-inline") || strings.Contains(console.ContentSecurityPolicy, "unsafe-eval") {
		t.Error("the policy allows inline or eval'd code")
	}
	// Amounts in fixed decimals, times as <time datetime> in UTC.
	if b := pages["/console/balances"].Body; !strings.Contains(b, "12.500000") {
		t.Errorf("balances page without the fixed-decimal amount:\n%s", b)
	}
	if b := pages["/console/entries"].Body; !regexp.MustCompile(`<time datetime="\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ">[^<]+ UTC</time>`).MatchString(b) {
		t.Errorf("journal page without UTC <time> elements:\n%s", b)
	}
}

func TestConsole_RolesApply(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	inv := ten.Session.Post("/v1/tenants/members", map[string]any{"email": "member@example.com", "role": "MEMBER"}).Expect(t, 201).JSON(t)
	_, token := env().NewUserWithEmail(t, "member@example.com")
	env().Client(t).WithSession(token).Post("/v1/tenants/members/accept", map[string]any{
		"token": inv["inviteToken"], "signerAddress": "0x0000000000000000000000000000000000000077",
	}).Expect(t, 200)
	before := keyTotal(t, ten)

	v := env().ConsoleVisitor(t)
	v.SignIn(token)
	if p := v.Get("/console/wallets"); p.Status != 200 || !strings.Contains(p.Body, "MEMBER") {
		t.Fatalf("a member reads wallets: %d", p.Status)
	}
	if p := v.Get("/console/keys"); p.Status != http.StatusForbidden || !strings.Contains(p.Body, "keys:manage") {
		t.Fatalf("a member lists keys: %d %s", p.Status, p.Body)
	}
	// No page a MEMBER may read renders a state-changing form, so a forged POST carries no
	// one-time token of this session and is refused before the use case (which would refuse
	// it for keys:manage, as the API does).
	p := v.Post("/console/keys", url.Values{"name": {"member key"}, "scopes": {"wallets:read"}}, true)
	if p.Status != http.StatusForbidden || !strings.Contains(p.Body, "one-time token") {
		t.Fatalf("a member creates a key: %d %s", p.Status, p.Body)
	}
	if after := keyTotal(t, ten); after != before {
		t.Fatalf("a refused member created a key: %v → %v", before, after)
	}
}

func TestConsole_OtherTenantsObjectsAre404(t *testing.T) {
	t.Parallel()
	mine, theirs := env().NewTenant(t), env().NewTenant(t)
	ep := theirs.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/theirs", "events": []string{"*"}}).Expect(t, 201).JSON(t)
	theirs.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "3"}).Expect(t, 201)
	bal := theirs.Root.Get("/v1/balances").Expect(t, 200).JSON(t)
	account, _ := bal["balances"].([]any)[0].(map[string]any)["accountId"].(string)
	if account == "" {
		t.Fatalf("no account: %v", bal)
	}

	v := env().ConsoleVisitor(t)
	v.SignIn(mine.SessionToken)
	for _, path := range []string{"/console/webhooks/" + ep["id"].(string), "/console/accounts/" + account,
		"/console/payments/pay_0000000000000000000000000", "/console/offramp/ofp_0000000000000000000000000"} {
		if p := v.Get(path); p.Status != http.StatusNotFound {
			t.Errorf("%s as another tenant: %d", path, p.Status)
		}
	}
	v.Get("/console/webhooks") // its own list: a one-time token of this session
	if p := v.Post("/console/webhooks/"+ep["id"].(string)+"/rotate", nil, true); p.Status != http.StatusNotFound {
		t.Errorf("rotate another tenant's secret: %d", p.Status)
	}
	// The owner sees its own.
	own := env().ConsoleVisitor(t)
	own.SignIn(theirs.SessionToken)
	if p := own.Get("/console/webhooks/" + ep["id"].(string)); p.Status != 200 || !strings.Contains(p.Body, "127.0.0.1:9/theirs") {
		t.Errorf("own endpoint: %d", p.Status)
	}
}

func TestConsole_SignOutEndsTheSession(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	if p := v.Post("/console/signout", nil, true); p.Status != http.StatusSeeOther {
		t.Fatalf("sign out: %d", p.Status)
	}
	if p := v.Get("/console/balances"); p.Status != http.StatusSeeOther {
		t.Fatalf("after sign out: %d", p.Status)
	}
}

func TestConsole_SecretShownOnceAfterRedirect(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	v.Get("/console/keys")
	p := v.Post("/console/keys", url.Values{"name": {"once"}, "scopes": {"wallets:read"}}, true)
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/keys" {
		t.Fatalf("create key: %d %q", p.Status, p.Header.Get("Location"))
	}
	secret := regexp.MustCompile(`csk_test_[A-Za-z0-9]+_[A-Za-z0-9]+`)
	first := v.Get("/console/keys")
	key := secret.FindString(first.Body)
	if first.Status != 200 || key == "" {
		t.Fatalf("the secret is not shown after creating the key: %d", first.Status)
	}
	env().Client(t).WithKey(key).Get("/v1/wallets").Expect(t, 200)
	if again := v.Get("/console/keys"); secret.MatchString(again.Body) {
		t.Fatal("the secret is shown a second time")
	}
	// Another session of the same member never sees it either.
	other := env().ConsoleVisitor(t)
	other.SignIn(ten.SessionToken)
	v.Get("/console/keys")
	p = v.Post("/console/keys", url.Values{"name": {"twice"}}, true)
	if p.Status != http.StatusSeeOther {
		t.Fatalf("second key: %d", p.Status)
	}
	copied := false
	for _, ck := range v.Cookies() {
		if ck.Name == "corridor_console_once" {
			other.SetCookies([]*http.Cookie{{Name: ck.Name, Value: ck.Value, Path: "/console"}})
			copied = true
		}
	}
	if !copied {
		t.Fatal("no one-time cookie to copy")
	}
	if got := other.Get("/console/keys"); secret.MatchString(got.Body) {
		t.Fatal("another session read the secret from a copied cookie")
	}
}

func TestConsole_SwitchToLive(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	if p := v.Post("/console/environment", url.Values{"environment": {"live"}}, false); p.Status != http.StatusForbidden {
		t.Fatalf("switch without a CSRF token: %d", p.Status)
	}
	oldCSRF := v.CSRF
	if p := v.Post("/console/environment", url.Values{"environment": {"live"}}, true); p.Status != http.StatusSeeOther {
		t.Fatalf("switch to LIVE: %d", p.Status)
	}
	p := v.Get("/console/keys")
	if p.Status != 200 || !strings.Contains(p.Body, `id="env">LIVE<`) || strings.Contains(p.Body, ">root<") {
		t.Fatalf("LIVE keys page (the TEST root key must not be listed): %d\n%s", p.Status, p.Body)
	}
	if v.CSRF == oldCSRF {
		t.Fatal("the CSRF token did not change with the environment's new cookie")
	}
	if p := v.Post("/console/keys", url.Values{"name": {"live key"}, "scopes": {"wallets:read"}}, true); p.Status != http.StatusSeeOther {
		t.Fatalf("create a LIVE key: %d %s", p.Status, p.Body)
	}
	if p := v.Get("/console/keys"); !regexp.MustCompile(`csk_live_[A-Za-z0-9]+_[A-Za-z0-9]+`).MatchString(p.Body) {
		t.Fatal("the LIVE key's secret is not a csk_live key")
	}
}

func TestConsole_ListsPage(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	for i := range 27 {
		env().NewKey(t, ten.Root, map[string]any{"name": "paged " + strconv.Itoa(i), "scopes": []string{"wallets:read"}})
	}
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	first := v.Get("/console/keys")
	next := regexp.MustCompile(`<a href="([^"]+)" rel="next"`).FindStringSubmatch(first.Body)
	if first.Status != 200 || !strings.Contains(first.Body, "1–25 of 28") || next == nil {
		t.Fatalf("first page: %d\n%s", first.Status, first.Body)
	}
	second := v.Get(strings.ReplaceAll(next[1], "&amp;", "&"))
	if !strings.Contains(second.Body, "26–28 of 28") || strings.Contains(second.Body, `rel="next"`) || !strings.Contains(second.Body, `rel="prev"`) {
		t.Fatalf("second page:\n%s", second.Body)
	}
	if p := v.Get("/console/no-such-page"); p.Status != http.StatusNotFound || !strings.Contains(p.Header.Get("Content-Type"), "text/html") {
		t.Fatalf("unknown page: %d %s", p.Status, p.Header.Get("Content-Type"))
	}
}

func TestConsole_SessionWithoutTenant(t *testing.T) {
	t.Parallel()
	_, token := env().NewUser(t)
	v := env().ConsoleVisitor(t)
	v.SignIn(token)
	p := v.Get("/console/keys")
	if p.Status != http.StatusForbidden || !strings.Contains(p.Body, "neither the owner nor a member") || !strings.Contains(p.Body, `action="/console/signout"`) {
		t.Fatalf("a session without a tenant: %d\n%s", p.Status, p.Body)
	}
	if p := v.Post("/console/keys", url.Values{"name": {"orphan"}}, true); p.Status != http.StatusForbidden || !strings.Contains(p.Body, "TENANT_REQUIRED") {
		t.Fatalf("a session without a tenant creates a key: %d\n%s", p.Status, p.Body)
	}
}

func TestConsole_RevokeRotateAndFilteredCSV(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "7.25"}).Expect(t, 201)
	ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1"}).Expect(t, 201)
	key := env().NewKey(t, ten.Root, map[string]any{"name": "to revoke", "scopes": []string{"wallets:read"}})
	keys := ten.Root.Get("/v1/api-keys").Expect(t, 200).JSON(t)["apiKeys"].([]any)
	var keyID string
	for _, k := range keys {
		if m := k.(map[string]any); m["name"] == "to revoke" {
			keyID = m["id"].(string)
		}
	}
	ep := ten.Root.Post("/v1/webhook-endpoints", map[string]any{"url": "http://127.0.0.1:9/rotate", "events": []string{"*"}}).Expect(t, 201).JSON(t)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)

	// Revoke: the key stops authenticating at once.
	v.Get("/console/keys")
	if p := v.Post("/console/keys/"+keyID+"/revoke", nil, true); p.Status != http.StatusSeeOther {
		t.Fatalf("revoke: %d %s", p.Status, p.Body)
	}
	env().Client(t).WithKey(key).Get("/v1/wallets").ExpectError(t, 401, "UNAUTHENTICATED")

	// Rotate: the new secret is shown once on the endpoint's page.
	id := ep["id"].(string)
	v.Get("/console/webhooks/" + id)
	if p := v.Post("/console/webhooks/"+id+"/rotate", nil, true); p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/webhooks/"+id {
		t.Fatalf("rotate: %d %q", p.Status, p.Header.Get("Location"))
	}
	if p := v.Get("/console/webhooks/" + id); !strings.Contains(p.Body, `id="endpoint-secret"`) || !strings.Contains(p.Body, "Secret rotated") {
		t.Fatal("the rotated secret is not shown")
	}
	if p := v.Get("/console/webhooks/" + id); strings.Contains(p.Body, `id="endpoint-secret"`) {
		t.Fatal("the rotated secret is shown twice")
	}

	// The journal CSV with a filter is the API's with the same filter, byte for byte.
	bal := ten.Root.Get("/v1/balances").Expect(t, 200).JSON(t)
	account, _ := bal["balances"].([]any)[0].(map[string]any)["accountId"].(string)
	for _, q := range []string{"accountId=" + account, "from=2000-01-01T00:00:00Z&to=2100-01-01T00:00:00Z", "to=2000-01-01T00:00:00Z"} {
		api := ten.Root.Get("/v1/ledger/entries?format=csv&"+q).Expect(t, 200)
		p := v.Get("/console/entries.csv?" + q)
		if p.Status != 200 || p.Body != string(api.Body) || p.Header.Get("Content-Type") != api.Header.Get("Content-Type") {
			t.Fatalf("CSV %s: %d\n%s\n---\n%s", q, p.Status, p.Body, api.Body)
		}
	}
	// Every account the journal and the trial balance link to opens (platform accounts are not
	// linked: they are no tenant's).
	links := regexp.MustCompile(`href="(/console/accounts/[^"]+)"`)
	for _, page := range []string{"/console/entries", "/console/trial-balance"} {
		found := links.FindAllStringSubmatch(v.Get(page).Body, -1)
		if len(found) == 0 {
			t.Fatalf("%s links no account", page)
		}
		for _, m := range found {
			if p := v.Get(m[1]); p.Status != 200 {
				t.Errorf("%s links %s, which answers %d", page, m[1], p.Status)
			}
		}
	}
	if p := v.Get("/console/entries?from=yesterday"); p.Status != http.StatusUnprocessableEntity || !strings.Contains(p.Body, "from must be") {
		t.Fatalf("bad filter: %d", p.Status)
	}
}

// TestConsole_CheckoutsListed: the console lists the tenant's checkouts, newest first, with
// their status and a link to the payment page, and filters them by status; another tenant's
// checkouts are not there.
func TestConsole_CheckoutsListed(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	body := map[string]any{"amount": 3, "currency": "USD", "cryptocurrency": "USDC", "description": "Console order"}
	first := ten.Root.Post("/v1/payments", body).Expect(t, 201).JSON(t)["id"].(string)
	second := ten.Root.Post("/v1/payments", body).Expect(t, 201).JSON(t)["id"].(string)
	ten.Root.Post("/v1/sandbox/payments/"+first+"/expire", nil).Expect(t, 200)
	harness.Poll(t, "the first checkout fails", func() map[string]any { return ten.Root.Get("/v1/payments/"+first).Expect(t, 200).JSON(t) },
		func(m map[string]any) bool { return m["status"] == "failed" })
	other := env().NewTenant(t)
	foreign := other.Root.Post("/v1/payments", body).Expect(t, 201).JSON(t)["id"].(string)

	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	p := v.Get("/console/checkouts")
	if p.Status != http.StatusOK || !strings.Contains(p.Body, `href="/pay/`+second+`"`) || strings.Contains(p.Body, foreign) ||
		strings.Index(p.Body, second) > strings.Index(p.Body, first) || !strings.Contains(p.Body, "FAILED (expired)") {
		t.Fatalf("checkouts page: %d\n%s", p.Status, p.Body)
	}
	failed := v.Get("/console/checkouts?status=failed")
	if !strings.Contains(failed.Body, first) || strings.Contains(failed.Body, second) {
		t.Fatalf("failed checkouts:\n%s", failed.Body)
	}
}

// TestConsole_RefusalSaysWhy: a form the use case refuses for a field shows what is wrong with
// it, as the API's details.fields says, not only which field ("invalid request: email").
func TestConsole_RefusalSaysWhy(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	api := ten.Session.Post("/v1/tenants/members", map[string]any{"email": "not-an-email", "role": "MEMBER"}).ExpectError(t, 400, "VALIDATION_FAILED")
	reason := api["details"].(map[string]any)["fields"].(map[string]any)["email"].(string)

	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	v.Get("/console/members")
	p := v.Post("/console/members", v.Form("/console/members", url.Values{"email": {"not-an-email"}, "role": {"MEMBER"}}), false)
	if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "email: "+reason) || !strings.Contains(p.Body, "VALIDATION_FAILED") {
		t.Fatalf("a bad email: %d, want 400 saying %q\n%s", p.Status, "email: "+reason, p.Body)
	}
	v.Get("/console/checkouts")
	p = v.Post("/console/checkouts", v.Form("/console/checkouts", url.Values{"amount": {"1.234"}, "description": {"three decimals"}}), false)
	if p.Status != http.StatusBadRequest || !strings.Contains(p.Body, "amount: ") {
		t.Fatalf("an amount with three decimals: %d, want 400 saying why\n%s", p.Status, p.Body)
	}
}

// TestConsole_JournalCSVLargerThanOneExport: one CSV holds at most 10,000 transfers. The
// journal's download says how many the filters hold (X-Total-Count, as the API's), takes the
// API's skip for the next part, and the journal page offers the parts when there are more than
// one CSV holds, instead of a file that silently stops at 10,000.
func TestConsole_JournalCSVLargerThanOneExport(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	const n = 10_001
	next := make(chan int)
	var wg sync.WaitGroup
	for range 32 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range next {
				ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "0.01"}).Expect(t, 201)
			}
		}()
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()

	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	for _, c := range []struct{ console, api string }{
		{"/console/entries.csv", "/v1/ledger/entries?format=csv"},
		{"/console/entries.csv?skip=10000", "/v1/ledger/entries?format=csv&skip=10000"},
	} {
		api := ten.Root.Get(c.api).Expect(t, 200)
		p := v.Get(c.console)
		if p.Status != 200 || p.Body != string(api.Body) || p.Header.Get("X-Total-Count") != strconv.Itoa(n) ||
			p.Header.Get("X-Total-Count") != api.Header.Get("X-Total-Count") {
			t.Fatalf("%s: %d, X-Total-Count %q (the API's %q), the API's body: %v", c.console, p.Status,
				p.Header.Get("X-Total-Count"), api.Header.Get("X-Total-Count"), p.Body == string(api.Body))
		}
	}
	if p := v.Get("/console/entries.csv?skip=-1"); p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a negative skip: %d", p.Status)
	}
	page := v.Get("/console/entries?skip=25")
	if !strings.Contains(page.Body, `id="csv-parts"`) || !strings.Contains(page.Body, `href="/console/entries.csv?skip=10000"`) ||
		!strings.Contains(page.Body, `href="/console/entries.csv" id="download-csv"`) {
		t.Fatalf("the journal page does not offer the parts of its CSV (or its download starts at the page's skip):\n%s", page.Body)
	}
}

// TestConsole_AccountOpensOnItsNewestLines: an account with more lines than a page opens on its
// newest page, where a finance team looks first; ?skip=0 still shows the oldest.
func TestConsole_AccountOpensOnItsNewestLines(t *testing.T) {
	t.Parallel()
	ten := env().NewTenant(t)
	var deposits []string
	for range 27 {
		deposits = append(deposits, ten.Root.Post("/v1/sandbox/balance-deposits", map[string]any{"amountUsd": "1"}).Expect(t, 201).JSON(t)["id"].(string))
	}
	account := ten.Root.Get("/v1/balances").Expect(t, 200).JSON(t)["balances"].([]any)[0].(map[string]any)["accountId"].(string)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	first, last := "sandbox_deposit:"+deposits[0]+"<", "sandbox_deposit:"+deposits[len(deposits)-1]+"<"
	if p := v.Get("/console/accounts/" + account); p.Status != 200 || !strings.Contains(p.Body, last) || strings.Contains(p.Body, first) {
		t.Fatalf("the account's first page: %d, newest line shown %v, oldest shown %v", p.Status, strings.Contains(p.Body, last), strings.Contains(p.Body, first))
	}
	if p := v.Get("/console/accounts/" + account + "?skip=0"); !strings.Contains(p.Body, first) || strings.Contains(p.Body, last) {
		t.Fatal("?skip=0 does not show the oldest lines")
	}
}
