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
// and the CSRF token of the last page seen. It refuses any path outside /console/, so API
// responses still go through the validating Client.
type ConsoleVisitor struct {
	t      testing.TB
	client *http.Client
	base   string
	// CSRF is the form token of the last page that carried one.
	CSRF string
}

// ConsolePage is one answer of the console.
type ConsolePage struct {
	Status int
	Header http.Header
	Body   string
}

var consoleCSRF = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

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
	return p
}

// Get fetches a page.
func (v *ConsoleVisitor) Get(path string) *ConsolePage {
	v.t.Helper()
	return v.send(http.MethodGet, path, nil, "")
}

// Post submits a form; withCSRF adds the token of the last page seen as _csrf.
func (v *ConsoleVisitor) Post(path string, form url.Values, withCSRF bool) *ConsolePage {
	v.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if withCSRF {
		form.Set("_csrf", v.CSRF)
	}
	return v.send(http.MethodPost, path, strings.NewReader(form.Encode()), "application/x-www-form-urlencoded")
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
