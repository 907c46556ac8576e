package console

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

// browserless is a console visitor over plain HTTP: a cookie jar and no redirects followed,
// so each answer is seen as the server gave it.
type browserless struct {
	t      *testing.T
	client *http.Client
	base   string
	csrf   string
}

func newVisitor(t *testing.T) *browserless {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &browserless{t: t, base: env().BaseURL, client: &http.Client{Jar: jar, Timeout: 30 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

type page struct {
	Status int
	Header http.Header
	Body   string
}

var csrfPattern = regexp.MustCompile(`name="_csrf" value="([^"]+)"`)

func (b *browserless) do(req *http.Request) page {
	b.t.Helper()
	resp, err := b.client.Do(req)
	if err != nil {
		b.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		b.t.Fatal(err)
	}
	p := page{Status: resp.StatusCode, Header: resp.Header, Body: string(raw)}
	if m := csrfPattern.FindStringSubmatch(p.Body); m != nil {
		b.csrf = m[1]
	}
	return p
}

func (b *browserless) get(path string) page {
	b.t.Helper()
	req, err := http.NewRequest(http.MethodGet, b.base+path, nil)
	if err != nil {
		b.t.Fatal(err)
	}
	return b.do(req)
}

// post sends a form; withCSRF adds the token of the last page seen.
func (b *browserless) post(path string, form url.Values, withCSRF bool) page {
	b.t.Helper()
	if form == nil {
		form = url.Values{}
	}
	if withCSRF {
		form.Set("_csrf", b.csrf)
	}
	req, err := http.NewRequest(http.MethodPost, b.base+path, strings.NewReader(form.Encode()))
	if err != nil {
		b.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	return b.do(req)
}

// signIn signs in with a session token in TEST and expects to land on the console.
func (b *browserless) signIn(token string) {
	b.t.Helper()
	if p := b.get("/console/signin"); p.Status != 200 {
		b.t.Fatalf("sign-in page: %d", p.Status)
	}
	p := b.post("/console/signin", url.Values{"token": {token}, "environment": {"test"}}, true)
	if p.Status != http.StatusSeeOther || p.Header.Get("Location") != "/console/" {
		b.t.Fatalf("sign in: %d %s\n%s", p.Status, p.Header.Get("Location"), p.Body)
	}
	b.get("/console/balances") // picks up the session's CSRF token
}
