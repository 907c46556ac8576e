package faults

import (
	"context"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/corridorhq/corridor/adapters/postgres"
	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/ports"
	"github.com/corridorhq/corridor/test/harness"
	"github.com/corridorhq/corridor/test/harness/faultproxy"
	"github.com/corridorhq/corridor/wiring"
)

// requestTimeout is the proxied service's REQUEST_TIMEOUT: a request stuck on a database that
// does not answer ends by then with 503.
const requestTimeout = 3 * time.Second

// proxiedServer starts a service on the package's database through a fault proxy.
func proxiedServer(t *testing.T, modify func(*wiring.Config)) (*harness.Env, *faultproxy.Proxy) {
	t.Helper()
	u, err := url.Parse(harness.Shared().DatabaseURL)
	if err != nil {
		t.Fatal(err)
	}
	proxy, err := faultproxy.Start(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(proxy.Close) // after the server's stop, which NewServer registers later
	u.Host = proxy.Addr()
	env := harness.NewServer(t, func(c *wiring.Config) {
		c.DatabaseURL = u.String()
		c.HTTPTimeouts.Request = requestTimeout
		if modify != nil {
			modify(c)
		}
	})
	return env, proxy
}

// as is a client of env with the tenant's root key.
func as(t *testing.T, env *harness.Env, ten *harness.Tenant) *harness.Client {
	return env.Client(t).WithKey(ten.RootKey)
}

// errorCode is the error envelope's code of a response, "" when it has none.
func errorCode(r *harness.Response) string {
	if r.Status < 400 {
		return ""
	}
	var e struct {
		Code string `json:"code"`
	}
	if err := jsonUnmarshal(r.Body, &e); err != nil {
		return "(no envelope)"
	}
	return e.Code
}

// expectInvariants runs `corridor check`'s checks in-process, with the simulated chain
// serving TEST, and fails naming every problem.
func expectInvariants(t *testing.T) {
	t.Helper()
	env := harness.Shared()
	rep, err := postgres.CheckInvariants(context.Background(), env.Service.Store.DB(),
		map[core.Environment]ports.Chain{core.EnvTest: env.Chain})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range rep.Checks {
		if !c.OK() {
			t.Errorf("corridor check: %s: %s", c.Name, strings.Join(c.Problems, "; "))
		}
	}
}

// eachStoreMode runs a scenario once per way the store commits: one transaction per unit of
// work, and the commit pipeline (on in production by default, STORE_PIPELINE_LANES=2). mode
// sets the server's configuration accordingly, whatever CORRIDOR_TEST_PIPELINE_LANES says.
func eachStoreMode(t *testing.T, run func(t *testing.T, mode func(*wiring.Config))) {
	for _, m := range []struct {
		name     string
		pipeline postgres.PipelineOptions
	}{
		{"unit transactions", postgres.PipelineOptions{}},
		{"commit pipeline", postgres.PipelineOptions{Lanes: postgres.DefaultPipelineLanes}},
	} {
		t.Run(m.name, func(t *testing.T) {
			run(t, func(c *wiring.Config) { c.StorePipeline = m.pipeline })
		})
	}
}
