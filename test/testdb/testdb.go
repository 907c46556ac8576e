// Package testdb gives tests a real PostgreSQL server and a fresh database
// per test package (or per test) on it. No fake stands in for PostgreSQL.
//
// The server comes from, in order:
//  1. TEST_DATABASE_URL, a server shared by every test process (its role
//     needs CREATEDB; each package gets its own database on it);
//  2. a testcontainers postgres:15 container, when a Docker engine answers;
//  3. a throwaway local cluster from the installed binaries (pgcluster),
//     deleted on cleanup.
//
// CORRIDOR_TESTDB_SOURCE=docker or =local forces 2 or 3; =citus starts a throwaway Citus
// cluster instead (a coordinator and two workers from the local binaries with the citus
// extension installed, `make citus`), on which every database is a Citus database that
// migrating distributes: how `make test` runs the money paths' suites on Citus.
package testdb

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/corridorhq/corridor/adapters/pgcluster"
)

// Server is a PostgreSQL server on which tests create databases.
type Server struct {
	// URL connects as a role allowed to create databases; its database
	// part is irrelevant (WithDatabase replaces it).
	URL string
	// Source says where the server came from, for the log line.
	Source string
	// local is the throwaway cluster behind a local server (nil for the others).
	local *pgcluster.Cluster
	// citus is the throwaway Citus cluster behind a citus server (nil for the others).
	citus *pgcluster.Citus
}

// Citus reports whether the server is a Citus coordinator (CORRIDOR_TESTDB_SOURCE=citus).
func (s *Server) Citus() bool { return s.citus != nil }

// CitusCluster is the Citus cluster behind a citus server (nil for the others): the chaos
// tests kill and revive its nodes.
func (s *Server) CitusCluster() *pgcluster.Citus { return s.citus }

// Restart restarts the server, disconnecting every session, and returns once it answers
// again: for tests of a PostgreSQL restart under load. Only the throwaway local cluster can be
// restarted (a container or TEST_DATABASE_URL's server is not this process's to restart).
func (s *Server) Restart(ctx context.Context) error {
	if s.local == nil {
		return fmt.Errorf("testdb: only the throwaway local cluster can be restarted, not %s", s.Source)
	}
	return s.local.Restart(ctx)
}

// Provision returns a server chosen as the package documentation says, and
// a cleanup that stops whatever Provision started (nothing, for
// TEST_DATABASE_URL). It prints one line naming the source.
func Provision(ctx context.Context) (*Server, func(), error) {
	begin := time.Now()
	srv, cleanup, err := provision(ctx)
	if err != nil {
		return nil, nil, fmt.Errorf("testdb: no PostgreSQL for tests: %w", err)
	}
	fmt.Fprintf(os.Stderr, "testdb: using %s (ready in %s)\n", srv.Source, time.Since(begin).Round(time.Millisecond))
	return srv, cleanup, nil
}

func provision(ctx context.Context) (*Server, func(), error) {
	if u := os.Getenv("TEST_DATABASE_URL"); u != "" {
		return &Server{URL: u, Source: "TEST_DATABASE_URL " + redact(u)}, func() {}, nil
	}
	switch os.Getenv("CORRIDOR_TESTDB_SOURCE") {
	case "docker":
		return fromContainer(ctx)
	case "local":
		return fromLocalCluster(ctx)
	case "citus":
		return fromCitus(ctx)
	case "":
	default:
		return nil, nil, fmt.Errorf("CORRIDOR_TESTDB_SOURCE must be docker, local or citus, not %q", os.Getenv("CORRIDOR_TESTDB_SOURCE"))
	}
	if pgcluster.DockerAvailable(ctx) {
		srv, cleanup, err := fromContainer(ctx)
		if err == nil {
			return srv, cleanup, nil
		}
		// An engine without network access cannot pull the image; the local
		// binaries may still do.
		fmt.Fprintf(os.Stderr, "testdb: testcontainers failed (%v); trying a local cluster\n", err)
	}
	return fromLocalCluster(ctx)
}

// fromLocalCluster starts a throwaway cluster; its Remove is the cleanup.
func fromLocalCluster(ctx context.Context) (*Server, func(), error) {
	c, err := pgcluster.NewThrowaway(ctx, func(f string, a ...any) {
		// Only the slow, surprising step (installing PostgreSQL) is worth a
		// line in test output; the rest is routine.
		if strings.Contains(f, "running:") {
			fmt.Fprintf(os.Stderr, f+"\n", a...)
		}
	})
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() {
		if err := c.Remove(); err != nil {
			fmt.Fprintf(os.Stderr, "testdb: removing local cluster: %v\n", err)
		}
	}
	return &Server{URL: c.URL("postgres"), Source: "throwaway local cluster " + c.DataDir(), local: c}, cleanup, nil
}

// fromCitus starts a throwaway Citus cluster; its Remove is the cleanup.
func fromCitus(ctx context.Context) (*Server, func(), error) {
	c, err := pgcluster.NewCitusThrowaway(ctx, nil)
	if err != nil {
		return nil, nil, err
	}
	cleanup := func() {
		if err := c.Remove(); err != nil {
			fmt.Fprintf(os.Stderr, "testdb: removing Citus cluster: %v\n", err)
		}
	}
	src := fmt.Sprintf("throwaway Citus cluster (coordinator %s, %d workers)", c.Coordinator.DataDir(), len(c.Workers))
	return &Server{URL: c.URL("postgres"), Source: src, citus: c}, cleanup, nil
}

var credentials = regexp.MustCompile(`//[^@/]*@`)

// redact hides credentials of a URL for logs.
func redact(u string) string {
	return credentials.ReplaceAllString(u, "//***@")
}

// NewDatabase creates a uniquely named database on s, for one test package
// or one test, so processes sharing a server never see each other's data.
// name is a readable hint (a package or test name); drop removes the
// database, disconnecting leftover sessions.
func (s *Server) NewDatabase(ctx context.Context, name string) (url string, drop func() error, err error) {
	dbname, err := uniqueName(name)
	if err != nil {
		return "", nil, err
	}
	if err := s.createDatabase(ctx, dbname); err != nil {
		return "", nil, fmt.Errorf("testdb: %w", err)
	}
	url, err = pgcluster.WithDatabase(s.URL, dbname)
	if err != nil {
		return "", nil, err
	}
	drop = func() error {
		// DROP DATABASE waits for a checkpoint of the whole cluster, which a loaded two-core
		// CI machine can take long over: a bound for failure, not a target.
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		if s.citus != nil {
			return s.citus.DropDatabase(ctx, dbname)
		}
		return pgcluster.DropDatabase(ctx, s.URL, dbname)
	}
	return url, drop, nil
}

// createDatabase creates dbname: on a Citus server on every node, with the extension and the
// workers registered, so the migrations distribute it.
func (s *Server) createDatabase(ctx context.Context, dbname string) error {
	if s.citus != nil {
		return s.citus.CreateDatabase(ctx, dbname)
	}
	return pgcluster.CreateDatabase(ctx, s.URL, dbname)
}

var unsafeChars = regexp.MustCompile(`[^a-z0-9]+`)

// uniqueName makes t_<hint>_<random>: lowercase, at most 63 bytes (the
// identifier limit), unique across processes and machines.
func uniqueName(hint string) (string, error) {
	var b [5]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	hint = strings.Trim(unsafeChars.ReplaceAllString(strings.ToLower(hint), "_"), "_")
	if len(hint) > 40 {
		hint = hint[:40]
	}
	return "t_" + hint + "_" + hex.EncodeToString(b[:]), nil
}

var shared struct {
	mu      sync.Mutex
	done    bool
	srv     *Server
	err     error
	cleanup func()
}

// Shared provisions the process's server on first use and returns the same
// one (or the same error) afterwards, so all tests of a package share one
// server. Close releases it; Main calls Close for you.
func Shared(ctx context.Context) (*Server, error) {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if !shared.done {
		shared.srv, shared.cleanup, shared.err = Provision(ctx)
		shared.done = true
	}
	return shared.srv, shared.err
}

// Close stops the server Shared provisioned, if any. A throwaway cluster left
// behind by a process that never got here (a panic, a -timeout) is removed
// by the next test run.
func Close() {
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.cleanup != nil {
		shared.cleanup()
	}
	shared.done, shared.srv, shared.err, shared.cleanup = false, nil, nil, nil
}
