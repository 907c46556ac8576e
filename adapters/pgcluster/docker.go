package pgcluster

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// DockerAvailable reports whether a Docker engine answers a ping within a
// second. It talks to the socket directly instead of running `docker info`,
// so it is quiet and quick where only the CLI is installed.
func DockerAvailable(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	for _, host := range dockerHosts() {
		if pingDocker(ctx, host) {
			return true
		}
	}
	return false
}

// dockerHosts lists DOCKER_HOST, else the usual socket locations of Docker
// Engine, rootless Docker and Docker Desktop.
func dockerHosts() []string {
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		return []string{h}
	}
	hosts := []string{"unix:///var/run/docker.sock"}
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		hosts = append(hosts, "unix://"+filepath.Join(d, "docker.sock"))
	}
	if home, err := os.UserHomeDir(); err == nil {
		hosts = append(hosts, "unix://"+filepath.Join(home, ".docker/run/docker.sock"),
			"unix://"+filepath.Join(home, ".docker/desktop/docker.sock"))
	}
	return hosts
}

func pingDocker(ctx context.Context, host string) bool {
	u, err := url.Parse(host)
	if err != nil {
		return false
	}
	tr := &http.Transport{}
	base := "http://docker"
	switch u.Scheme {
	case "unix":
		if _, err := os.Stat(u.Path); err != nil {
			return false
		}
		tr.DialContext = func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", u.Path)
		}
	case "tcp":
		base = "http://" + u.Host
	default:
		return false
	}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/_ping", nil)
	if err != nil {
		return false
	}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		return false
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64))
	return resp.StatusCode == http.StatusOK && strings.TrimSpace(string(body)) == "OK"
}

// ComposeRequiredError is returned by Ensure when no PostgreSQL binaries are
// installed but a Docker engine runs and Options.ComposeFile is empty: the
// caller should use `docker compose` (EnsureCompose) instead.
type ComposeRequiredError struct{}

func (*ComposeRequiredError) Error() string {
	return "pgcluster: no local PostgreSQL binaries, but a Docker engine is running: use `docker compose up -d postgres` (pgcluster.EnsureCompose) or set DATABASE_URL"
}

// ComposeOptions describe the postgres service of the project's
// docker-compose.yml.
type ComposeOptions struct {
	File     string // path of docker-compose.yml
	Service  string // default "postgres"
	Port     int    // host port published on 127.0.0.1; default 5432
	User     string // default "corridor"
	Password string // default "corridor"
	Database string // application database to create if missing; "" for none
	Logf     func(string, ...any)
}

func (o *ComposeOptions) defaults() {
	if o.Service == "" {
		o.Service = "postgres"
	}
	if o.Port == 0 {
		o.Port = 5432
	}
	if o.User == "" {
		o.User = "corridor"
	}
	if o.Password == "" {
		o.Password = "corridor"
	}
	if o.Logf == nil {
		o.Logf = func(string, ...any) {}
	}
}

// EnsureCompose starts the compose postgres service (`docker compose up -d
// --wait`, which waits for its healthcheck) and returns it as a Cluster.
// Stop stops the service only if this call started it.
func EnsureCompose(ctx context.Context, o ComposeOptions) (*Cluster, error) {
	o.defaults()
	c := &Cluster{
		host: "127.0.0.1", port: o.Port, user: o.User, password: o.Password,
		compose: &o, logf: o.Logf,
	}
	if err := WaitReady(ctx, c.URL("postgres"), 500*time.Millisecond); err != nil {
		o.Logf("pgcluster: starting PostgreSQL with docker compose -f %s up -d --wait %s", o.File, o.Service)
		if out, err := c.composeCmd(ctx, "up", "-d", "--wait", o.Service).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("pgcluster: docker compose up: %w\n%s", err, out)
		}
		c.started = true
		if err := WaitReady(ctx, c.URL("postgres"), 60*time.Second); err != nil {
			return nil, err
		}
	}
	if o.Database != "" {
		if err := c.CreateDatabase(ctx, o.Database); err != nil {
			return nil, err
		}
	}
	return c, nil
}

func (c *Cluster) composeCmd(ctx context.Context, args ...string) *exec.Cmd {
	full := append([]string{"compose", "-f", c.compose.File}, args...)
	return exec.CommandContext(ctx, "docker", full...)
}
