package harness

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"
)

// ConsolePrefix is where the tenant console's pages are served: HTML, outside the API's
// OpenAPI document, so ConsoleVisitor accepts only paths under it.
const ConsolePrefix = "/console/"

// ConsoleVisitor is a visitor of the console's pages over plain HTTP, as a browser without
// JavaScript: a cookie jar, no redirects followed (each answer is seen as the server gave it),
// the CSRF token of the last page seen and the one-time token of each of its forms. It refuses any path outside /console/, so API
// responses still go through the validating Client.
type ConsoleVisitor struct {
	t      testing.TB
	client *http.Client
	base   string
	// CSRF is the form token of the last page that carried one.
	CSRF string
	// once is the one-time (idempotency) token of each state-changing form of the last page,
	// by the form's action.
	once    map[string]string
	anyOnce string
	// Headers are sent with every request (a test playing a client that claims a host).
	Headers map[string]string
}

// ConsolePage is one answer of the console.
type ConsolePage struct {
	Status int
	Header http.Header
	Body   string
}

var (
	consoleCSRF = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)
	consoleForm = regexp.MustCompile(`(?s)<form[^>]*\saction="([^"]+)"[^>]*>(.*?)</form>`)
	consoleOnce = regexp.MustCompile(`name="_once" value="([^"]+)"`)
)

// ConsoleVisitor returns a fresh visitor (no cookies).
func (e *Env) ConsoleVisitor(t testing.TB) *ConsoleVisitor {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &ConsoleVisitor{t: t, base: e.BaseURL, client: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// Cookies and SetCookies reach the visitor's jar for the console's paths.
func (v *ConsoleVisitor) Cookies() []*http.Cookie { return v.client.Jar.Cookies(v.consoleURL()) }

func (v *ConsoleVisitor) SetCookies(cookies []*http.Cookie) {
	v.client.Jar.SetCookies(v.consoleURL(), cookies)
}

func (v *ConsoleVisitor) consoleURL() *url.URL {
	u, err := url.Parse(v.base + ConsolePrefix)
	if err != nil {
		v.t.Fatal(err)
	}
	return u
}

func (v *ConsoleVisitor) send(method, path string, body io.Reader, contentType string) *ConsolePage {
	v.t.Helper()
	if !strings.HasPrefix(path, ConsolePrefix) {
		v.t.Fatalf("ConsoleVisitor serves console pages only (%s); use Client for %s", ConsolePrefix, path)
	}
	req, err := http.NewRequest(method, v.base+path, body)
	if err != nil {
		v.t.Fatal(err)
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for k, val := range v.Headers {
		req.Header.Set(k, val)
	}
	resp, err := v.client.Do(req)
	if err != nil {
		v.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		v.t.Fatal(err)
	}
	p := &ConsolePage{Status: resp.StatusCode, Header: resp.Header, Body: string(raw)}
	if m := consoleCSRF.FindStringSubmatch(p.Body); m != nil {
		v.CSRF = m[1]
	}
	v.once, v.anyOnce = map[string]string{}, ""
	for _, f := range consoleForm.FindAllStringSubmatch(p.Body, -1) {
		if m := consoleOnce.FindStringSubmatch(f[2]); m != nil {
			v.once[f[1]] = m[1]
			v.anyOnce = m[1]
		}
	}
	return p
}

// Get fetches a page.
func (v *ConsoleVisitor) Get(path string) *ConsolePage {
	v.t.Helper()
	return v.send(http.MethodGet, path, nil, "")
}

// Post submits a form; withCSRF adds the token of the last page seen as _csrf and, unless the
// form carries one, the one-time token the last page rendered in its form for path as _once
// (as a browser submitting that form would), or else any one-time token of the last page (a
// token is tied to the session, not to a form: a test reaching a form its page does not show,
// another tenant's object or a refused role, sends one the session rendered).
func (v *ConsoleVisitor) Post(path string, form url.Values, withCSRF bool) *ConsolePage {
	v.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if withCSRF {
		form.Set("_csrf", v.CSRF)
		tok, ok := v.once[path]
		if !ok {
			tok = v.anyOnce
		}
		if tok != "" && form.Get("_once") == "" {
			form.Set("_once", tok)
		}
	}
	return v.send(http.MethodPost, path, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded")
}

// Form is the form of the last page whose action is path, filled with values: its CSRF and
// one-time tokens included, ready to be submitted (once, twice, or in parallel) with
// Post(path, form, false). A path with no such form on the last page fails the test.
func (v *ConsoleVisitor) Form(path string, values url.Values) url.Values {
	v.t.Helper()
	tok, ok := v.once[path]
	if !ok {
		v.t.Fatalf("the last page has no form posting to %s with a one-time token", path)
	}
	form := url.Values{}
	for k, vs := range values {
		form[k] = append([]string(nil), vs...)
	}
	form.Set("_csrf", v.CSRF)
	form.Set("_once", tok)
	return form
}

// SignIn signs in with a session token in TEST and expects to land on the console.
func (v *ConsoleVisitor) SignIn(token string) {
	v.t.Helper()
	if p := v.Get("/console/signin"); p.Status != http.StatusOK {
		v.t.Fatalf("sign-in page: %d", p.Status)
	}
	p := v.Post("/console/signin", url.Values{"token": {token}, "environment": {"test"}}, true)
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/" {
		v.t.Fatalf("sign in: %d %s\n%s", p.Status, p.Header.Get("Location"), p.Body)
	}
	v.Get("/console/balances") // picks up the session's CSRF token
}

// OperatorSignIn signs in to the operator console (/console/operator) with the test servers'
// operator token and expects to land on its overview.
func (v *ConsoleVisitor) OperatorSignIn() {
	v.t.Helper()
	if p := v.Get("/console/operator/signin"); p.Status != http.StatusOK || !strings.Contains(p.Body, "OPERATOR_TOKEN") {
		v.t.Fatalf("operator sign-in page: %d %s", p.Status, p.Body)
	}
	p := v.Post("/console/operator/signin", url.Values{"token": {OperatorToken}}, true)
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/operator" {
		v.t.Fatalf("operator sign in: %d %s\n%s", p.Status, p.Header.Get("Location"), p.Body)
	}
}

// OperatorRow reloads the operator console until its table (operator-payments, operator-jobs,
// operator-endpoints) holds a row containing text, which background work may take a moment to
// produce, and returns that row; it fails the test after 30 s.
func (v *ConsoleVisitor) OperatorRow(table, text string) string {
	v.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		page := v.Get("/console/operator")
		if page.Status != http.StatusOK {
			v.t.Fatalf("operator page: %d %s", page.Status, page.Body)
		}
		if row := tableRow(page.Body, table, text); row != "" {
			return row
		}
		if time.Now().After(deadline) {
			v.t.Fatalf("%s never listed %s:\n%s", table, text, page.Body)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// tableRow is the <tr> of the table with id table that contains text, or "".
func tableRow(body, table, text string) string {
	start := strings.Index(body, `id="`+table+`"`)
	if start < 0 {
		return ""
	}
	end := strings.Index(body[start:], "</table>")
	if end < 0 {
		return ""
	}
	for _, row := range strings.Split(body[start:start+end], "<tr>") {
		if strings.Contains(row, text) {
			return row
		}
	}
	return ""
}

// Follow GETs a console path and follows every redirect, as a browser does through a sign-in at
// the identity provider, with the visitor's jar; it answers the last page and where it was.
// The path must be under /console/; the redirects may leave it (the provider) and come back.
func (v *ConsoleVisitor) Follow(path string) (*ConsolePage, *url.URL) {
	v.t.Helper()
	if !strings.HasPrefix(path, ConsolePrefix) {
		v.t.Fatalf("console visitor: %s is not a console page", path)
	}
	follow := &http.Client{Jar: v.client.Jar, Timeout: v.client.Timeout}
	resp, err := follow.Get(v.base + path)
	if err != nil {
		v.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		v.t.Fatal(err)
	}
	return &ConsolePage{Status: resp.StatusCode, Header: resp.Header, Body: string(body)}, resp.Request.URL
}

// Forget drops the visitor's cookies: a new browser.
func (v *ConsoleVisitor) Forget() {
	jar, err := cookiejar.New(nil)
	if err != nil {
		v.t.Fatal(err)
	}
	v.client.Jar = jar
}
