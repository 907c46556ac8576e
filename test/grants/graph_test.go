// Package grants walks the privilege graph of the running service over HTTP: from each kind of
// credential, every route that creates a principal or a credential, to the closure of what can
// be reached (docs/decisions/tenancy.md).
package grants

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/corridorhq/corridor/core"
	"github.com/corridorhq/corridor/core/auth"
	"github.com/corridorhq/corridor/core/tenant"
	"github.com/corridorhq/corridor/test/harness"
)

func TestMain(m *testing.M) { harness.Main(m) }

var env = harness.Shared

// A credential of the graph: what it holds for the grant rule, and how to call as it.
type credential struct {
	name   string
	holds  auth.Holding
	agent  bool
	envs   []core.Environment // where it acts: a key in its own, a session in both
	client func(core.Environment) *harness.Client
}

// signature identifies credentials that hold the same powers, so each is explored once.
func (c credential) signature() string {
	var parts []string
	for _, e := range []core.Environment{core.EnvTest, core.EnvLive} {
		scopes := expand(c.holds[e])
		parts = append(parts, string(e)+"="+strings.Join(scopes, ","))
	}
	return fmt.Sprintf("agent=%t;acts=%v;%s", c.agent, c.envs, strings.Join(parts, ";"))
}

// expand lists the scopes a set holds, "*" standing for all of them.
func expand(scopes []auth.Scope) []string {
	var out []string
	for _, s := range scopes {
		if s == auth.ScopeRoot {
			out = nil
			for _, each := range auth.AllScopes[:len(auth.AllScopes)-1] {
				out = append(out, string(each))
			}
			break
		}
		out = append(out, string(s))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// within reports the first (environment, scope) of got that held does not hold.
func within(got, held auth.Holding) (string, bool) {
	for _, e := range []core.Environment{core.EnvTest, core.EnvLive} {
		for _, s := range expand(got[e]) {
			if !held.Holds(e, auth.Scope(s)) {
				return string(e) + " " + s, false
			}
		}
	}
	return "", true
}

// graph explores credentials of one tenant, remembering each signature's children.
type graph struct {
	t        *testing.T
	ten      *harness.Tenant
	agents   map[core.Environment]string // an agent per environment, for the agent-key route
	children map[string][]credential
	routes   map[string]bool // the x-corridor-grants kinds the document declares
}

var emailSeq atomic.Int64

// TestGrants_PrivilegeGraph: for each kind of credential, every route the document marks as
// creating a principal or a credential (x-corridor-grants) is followed, transitively; every
// credential reached holds nothing its starting credential does not (auth.AuthorizeGrant's
// rule, with a LIVE key's scopes counting in TEST).
func TestGrants_PrivilegeGraph(t *testing.T) {
	g := newGraph(t)
	for _, start := range g.starts() {
		t.Run(start.name, func(t *testing.T) {
			reached := g.closure(start)
			for _, c := range reached {
				if where, ok := within(c.holds, start.holds); !ok {
					t.Errorf("%s reaches %s, which holds %s beyond what it holds", start.name, c.name, where)
				}
				if start.agent {
					for _, e := range c.envs {
						for _, f := range auth.AgentForbiddenScopes {
							if c.holds.Holds(e, f) {
								t.Errorf("%s causes %s to hold %s", start.name, c.name, f)
							}
						}
					}
				}
			}
		})
	}
}

func newGraph(t *testing.T) *graph {
	e := env()
	g := &graph{t: t, ten: e.NewTenant(t), children: map[string][]credential{}, routes: map[string]bool{}}
	var doc struct {
		Paths map[string]map[string]map[string]any `json:"paths"`
	}
	e.Client(t).Get("/v1/openapi.json").Expect(t, 200).Decode(t, &doc)
	for path, ops := range doc.Paths {
		for method, op := range ops {
			kind, ok := op["x-corridor-grants"].(string)
			if !ok {
				continue
			}
			if !slices.Contains([]string{"api_key", "agent_key", "agent", "member_invite", "member_accept", "member_role"}, kind) {
				t.Fatalf("%s %s creates %q, which this test does not know how to follow", strings.ToUpper(method), path, kind)
			}
			g.routes[kind] = true
		}
	}
	for _, kind := range []string{"api_key", "agent_key", "agent", "member_invite", "member_accept", "member_role"} {
		if !g.routes[kind] {
			t.Fatalf("no route of the document creates %s", kind)
		}
	}
	g.agents = map[core.Environment]string{}
	for _, env := range []core.Environment{core.EnvTest, core.EnvLive} {
		r := g.session(g.ten.Session, env).Post("/v1/agents", map[string]any{"name": "graph " + string(env)})
		if r.Status == http.StatusCreated {
			g.agents[env] = r.JSON(t)["id"].(string)
		}
	}
	return g
}

func (g *graph) session(c *harness.Client, env core.Environment) *harness.Client {
	if env == core.EnvLive {
		return c.With("X-Corridor-Environment", "live")
	}
	return c
}

// starts are the credentials of the issue: OWNER, ADMIN and MEMBER sessions; root, narrow and
// agent keys.
func (g *graph) starts() []credential {
	t, e := g.t, env()
	out := []credential{g.sessionCredential("OWNER session", g.ten.Session, tenant.RoleOwner)}
	for _, role := range []tenant.Role{tenant.RoleAdmin, tenant.RoleMember} {
		email := fmt.Sprintf("start-%s-%d@example.com", strings.ToLower(string(role)), emailSeq.Add(1))
		inv := g.ten.Session.Post("/v1/tenants/members", map[string]any{"email": email, "role": string(role)}).Expect(t, 201).JSON(t)
		_, c := e.SessionFor(t, email)
		c.Post("/v1/tenants/members/accept", map[string]any{"token": inv["inviteToken"], "signerAddress": signer()}).Expect(t, 200)
		out = append(out, g.sessionCredential(string(role)+" session", c, role))
	}
	keys := []struct {
		name   string
		env    core.Environment
		scopes []string
	}{
		{"root TEST key", core.EnvTest, []string{"*"}},
		{"root LIVE key", core.EnvLive, []string{"*"}},
		{"members:manage key", core.EnvTest, []string{"members:manage"}},
		{"keys:manage key", core.EnvTest, []string{"keys:manage", "wallets:read", "payments:create"}},
		{"agents:manage key", core.EnvTest, []string{"agents:manage", "payments:create", "cards:read"}},
		{"LIVE members:manage key", core.EnvLive, []string{"members:manage", "keys:manage"}},
	}
	for _, k := range keys {
		body := map[string]any{"name": k.name, "environment": strings.ToLower(string(k.env)), "scopes": k.scopes}
		resp := g.ten.Session.Post("/v1/api-keys", body).Expect(t, 201).JSON(t)
		out = append(out, g.keyCredential(k.name, resp))
	}
	agentKey := g.ten.Session.Post("/v1/agents/"+g.agents[core.EnvTest]+"/keys", map[string]any{"name": "agent *", "scopes": []string{"*"}}).Expect(t, 201).JSON(t)
	out = append(out, g.keyCredential("agent key minted with *", agentKey))
	return out
}

func (g *graph) sessionCredential(name string, c *harness.Client, role tenant.Role) credential {
	return credential{name: name, holds: tenant.RoleGrant(role), envs: []core.Environment{core.EnvTest, core.EnvLive},
		client: func(e core.Environment) *harness.Client { return g.session(c, e) }}
}

// keyCredential is the credential a key create response describes.
func (g *graph) keyCredential(name string, resp map[string]any) credential {
	e, _ := core.ParseEnvironment(resp["environment"].(string))
	var scopes []auth.Scope
	for _, s := range resp["scopes"].([]any) {
		scopes = append(scopes, auth.Scope(s.(string)))
	}
	holds := auth.Holding{e: scopes}
	if e == core.EnvLive {
		holds[core.EnvTest] = scopes
	}
	plaintext := resp["key"].(string)
	return credential{name: name, holds: holds, agent: resp["agentId"] != nil, envs: []core.Environment{e},
		client: func(core.Environment) *harness.Client { return env().Client(g.t).WithKey(plaintext) }}
}

// closure is every credential reachable from start, start included.
func (g *graph) closure(start credential) []credential {
	seen := map[string]bool{}
	var out []credential
	queue := []credential{start}
	for len(queue) > 0 && len(seen) < 64 {
		c := queue[0]
		queue = queue[1:]
		if seen[c.signature()] {
			continue
		}
		seen[c.signature()] = true
		out = append(out, c)
		queue = append(queue, g.explore(c)...)
	}
	return out
}

// explore follows every granting route from c once per signature: the strongest key and agent
// key it can mint in each environment it acts in (each scope it does not hold is tried alone,
// so any escalation is caught), and members of each role it can invite, accepted by their
// invitee.
func (g *graph) explore(c credential) []credential {
	if kids, ok := g.children[c.signature()]; ok {
		return kids
	}
	var made []credential
	for _, e := range c.envs {
		client := c.client(e)
		made = append(made, g.mintKeys(c, client, e)...)
		made = append(made, g.mintAgentKeys(c, client, e)...)
		made = append(made, g.invite(client)...)
		made = append(made, g.promote(client)...)
	}
	// Only credentials that some other credential made here does not dominate are followed: one
	// holding no more than another (and no less restricted, an agent being the more restricted)
	// reaches no more, so the strongest of each kind stands for the rest. One exceeding c is
	// followed, and is what the test reports.
	var kids []credential
	for i, k := range made {
		if dominates(c, k) {
			continue
		}
		dominated := false
		for j, other := range made {
			if j != i && dominates(other, k) && (!dominates(k, other) || j < i) {
				dominated = true
				break
			}
		}
		if !dominated {
			kids = append(kids, k)
		}
	}
	g.children[c.signature()] = kids
	return kids
}

// dominates reports whether a holds everything b holds and b is no less restricted.
func dominates(a, b credential) bool {
	_, ok := within(b.holds, a.holds)
	return ok && (b.agent || !a.agent)
}

// mintKeys tries a key of the scopes c holds in env, then each other scope alone, in env and,
// for a key, in the other environment.
func (g *graph) mintKeys(c credential, client *harness.Client, actsIn core.Environment) []credential {
	var kids []credential
	for _, target := range []core.Environment{core.EnvTest, core.EnvLive} {
		held := expand(c.holds[target])
		tries := [][]string{{"*"}}
		if len(held) > 0 {
			tries = append(tries, held)
		}
		for _, s := range auth.AllScopes[:len(auth.AllScopes)-1] {
			if !slices.Contains(held, string(s)) {
				tries = append(tries, []string{string(s)})
			}
		}
		for _, scopes := range tries {
			body := map[string]any{"name": "graph", "environment": strings.ToLower(string(target)), "scopes": scopes}
			if r := client.Post("/v1/api-keys", body); r.Status == http.StatusCreated {
				kids = append(kids, g.keyCredential(fmt.Sprintf("key %v in %s minted by %s acting in %s", scopes, target, c.name, actsIn), r.JSON(g.t)))
			}
		}
	}
	return kids
}

// mintAgentKeys creates an agent when c can, and tries agent keys of "*" and of each scope.
func (g *graph) mintAgentKeys(c credential, client *harness.Client, actsIn core.Environment) []credential {
	agentID := g.agents[actsIn]
	if r := client.Post("/v1/agents", map[string]any{"name": "graph"}); r.Status == http.StatusCreated {
		agentID = r.JSON(g.t)["id"].(string)
	}
	if agentID == "" {
		return nil
	}
	var kids []credential
	tries := [][]string{{"*"}}
	for _, s := range auth.AllScopes[:len(auth.AllScopes)-1] {
		tries = append(tries, []string{string(s)})
	}
	for _, scopes := range tries {
		r := client.Post("/v1/agents/"+agentID+"/keys", map[string]any{"name": "graph", "scopes": scopes})
		if r.Status == http.StatusCreated {
			kids = append(kids, g.keyCredential(fmt.Sprintf("agent key %v minted by %s in %s", scopes, c.name, actsIn), r.JSON(g.t)))
		}
	}
	return kids
}

// promote tries to give a MEMBER (invited by the owner and accepted) each role with a role
// change; the member's session after a change that succeeds is a new credential.
func (g *graph) promote(client *harness.Client) []credential {
	var kids []credential
	for _, role := range []tenant.Role{tenant.RoleAdmin, tenant.RoleMember} {
		email := fmt.Sprintf("graph-role-%d@example.com", emailSeq.Add(1))
		inv := g.ten.Session.Post("/v1/tenants/members", map[string]any{"email": email, "role": string(tenant.RoleMember)}).Expect(g.t, 201).JSON(g.t)
		_, member := env().SessionFor(g.t, email)
		member.Post("/v1/tenants/members/accept", map[string]any{"token": inv["inviteToken"], "signerAddress": signer()}).Expect(g.t, 200)
		if r := client.Do("PATCH", "/v1/tenants/members/"+inv["id"].(string), map[string]any{"role": string(role)}); r.Status == http.StatusOK {
			kids = append(kids, g.sessionCredential(string(role)+" session by role change", member, role))
		}
	}
	return kids
}

// invite tries to invite an ADMIN and a MEMBER; an invite that succeeds is accepted by its
// invitee, and the invitee's session is a new credential.
func (g *graph) invite(client *harness.Client) []credential {
	var kids []credential
	for _, role := range []tenant.Role{tenant.RoleAdmin, tenant.RoleMember} {
		email := fmt.Sprintf("graph-%d@example.com", emailSeq.Add(1))
		r := client.Post("/v1/tenants/members", map[string]any{"email": email, "role": string(role)})
		if r.Status != http.StatusCreated {
			continue
		}
		_, invitee := env().SessionFor(g.t, email)
		invitee.Post("/v1/tenants/members/accept", map[string]any{"token": r.JSON(g.t)["inviteToken"], "signerAddress": signer()}).Expect(g.t, 200)
		kids = append(kids, g.sessionCredential(string(role)+" session invited", invitee, role))
	}
	return kids
}

var signerSeq atomic.Int64

// signer is a distinct, checksummed-enough (all digits) address for each accepted member.
func signer() string {
	return fmt.Sprintf("0x%040d", 1000+signerSeq.Add(1))
}
