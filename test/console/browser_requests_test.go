package console

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/corridorhq/corridor/test/harness"
)

// loggedRequest waits until the request with id is in ten's request log and returns the entry.
func loggedRequest(t *testing.T, ten *harness.Tenant, id string) map[string]any {
	t.Helper()
	return harness.Poll(t, "the request "+id+" in the log", func() map[string]any {
		list := ten.Root.Get("/v1/request-logs?requestId="+url.QueryEscape(id)).Expect(t, 200).JSON(t)["requestLogs"].([]any)
		if len(list) == 0 {
			return nil
		}
		return list[0].(map[string]any)
	}, func(m map[string]any) bool { return m != nil })
}

// TestConsoleBrowserRequests: the Requests page lists the tenant's API requests; the status
// filter keeps only the failures, the request id filter finds one, its error envelope opens in
// the row, and the request's page shows it whole.
func TestConsoleBrowserRequests(t *testing.T) {
	ten := env().NewTenant(t)
	okID, failedID := "req-console-ok-"+ten.ID, "req-console-failed-"+ten.ID
	ten.Root.With("X-Request-Id", okID).Get("/v1/wallets").Expect(t, 200)
	ten.Root.With("X-Request-Id", failedID).Get("/v1/wallets/wal_00000000000000000000000000").ExpectError(t, 404, "WALLET_NOT_FOUND")
	loggedRequest(t, ten, okID)
	failed := loggedRequest(t, ten, failedID)

	ctx := harness.Browser(t)
	base := env().BaseURL
	var listed, filtered, summary, detail string
	run(t, ctx, "the list",
		chromedp.Navigate(base+"/console/signin"),
		chromedp.WaitVisible("#signin-form", chromedp.ByQuery),
		chromedp.SetValue("#token", ten.SessionToken, chromedp.ByQuery),
		chromedp.Click("#signin", chromedp.ByQuery),
		chromedp.WaitVisible("nav", chromedp.ByQuery),
		chromedp.Click(`a[href="/console/requests"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#requests", chromedp.ByID),
		chromedp.Text("#requests", &listed, chromedp.ByID),
	)
	if !strings.Contains(listed, okID) || !strings.Contains(listed, failedID) || !strings.Contains(listed, "/v1/wallets/{id}") {
		t.Fatalf("the list: %s", listed)
	}
	run(t, ctx, "filter by status",
		chromedp.SetValue("#filter-status", "4xx", chromedp.ByID),
		chromedp.Click("#filter-requests-submit", chromedp.ByID),
		// The answer's form carries the filter as its value attribute: the new page is in.
		chromedp.WaitVisible(`input#filter-status[value="4xx"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#request-"+failed["id"].(string), chromedp.ByID),
		chromedp.Text("#requests", &filtered, chromedp.ByID),
		chromedp.Click("#request-"+failed["id"].(string)+" summary", chromedp.ByQuery),
		chromedp.WaitVisible("#request-"+failed["id"].(string)+" pre", chromedp.ByQuery),
		chromedp.Text("#request-"+failed["id"].(string)+" .error-body", &summary, chromedp.ByQuery),
	)
	if strings.Contains(filtered, okID) || !strings.Contains(filtered, failedID) || !strings.Contains(summary, "WALLET_NOT_FOUND") || !strings.Contains(summary, `"statusCode": 404`) {
		t.Fatalf("filtered by 4xx: %s\nerror body: %s", filtered, summary)
	}
	run(t, ctx, "filter by request id and open it",
		chromedp.SetValue("#filter-status", "404", chromedp.ByID),
		chromedp.SetValue("#filter-request-id", failedID, chromedp.ByID),
		chromedp.Click("#filter-requests-submit", chromedp.ByID),
		chromedp.WaitVisible(`input#filter-request-id[value="`+failedID+`"]`, chromedp.ByQuery),
		chromedp.WaitVisible("#request-"+failed["id"].(string), chromedp.ByID),
		chromedp.Click("#request-"+failed["id"].(string)+" a", chromedp.ByQuery),
		chromedp.WaitVisible("#detail-error", chromedp.ByID),
		chromedp.Text("#request-detail", &detail, chromedp.ByID),
	)
	if !strings.Contains(detail, failedID) || !strings.Contains(detail, "WALLET_NOT_FOUND") || !strings.Contains(detail, failed["keyId"].(string)) {
		t.Fatalf("the request's page: %s", detail)
	}
}

// TestConsole_RequestsFollowTheAPI: another tenant's entry is 404 on the console as on the API,
// and a bad filter answers an error page without listing anything.
func TestConsole_RequestsFollowTheAPI(t *testing.T) {
	t.Parallel()
	ten, other := env().NewTenant(t), env().NewTenant(t)
	id := "req-console-theirs-" + other.ID
	other.Root.With("X-Request-Id", id).Get("/v1/wallets").Expect(t, 200)
	theirs := loggedRequest(t, other, id)
	v := env().ConsoleVisitor(t)
	v.SignIn(ten.SessionToken)
	if p := v.Get("/console/requests/" + theirs["id"].(string)); p.Status != http.StatusNotFound {
		t.Fatalf("another tenant's request: %d", p.Status)
	}
	if p := v.Get("/console/requests?requestId=" + url.QueryEscape(id)); p.Status != http.StatusOK || strings.Contains(p.Body, theirs["id"].(string)) || !strings.Contains(p.Body, `id="empty"`) {
		t.Fatalf("another tenant's request is listed: %d", p.Status)
	}
	if p := v.Get("/console/requests?status=6xx"); p.Status != http.StatusBadRequest && p.Status != http.StatusUnprocessableEntity {
		t.Fatalf("a bad status filter: %d", p.Status)
	}
}
