package pgcluster

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
)

// ErrNoBinaries means no PostgreSQL server binaries were found and none could
// be installed; the message says what to do instead.
var ErrNoBinaries = errors.New("pgcluster: PostgreSQL server binaries (initdb, pg_ctl, postgres) not found")

// binaries holds absolute paths of the server programs of one installation.
type binaries struct {
	initdb, pgctl, postgres string
	major                   int
}

// versionDirGlobs are where distributions put versioned installations that
// are not on PATH (Debian/Ubuntu, then RHEL/Fedora's PGDG packages).
var versionDirGlobs = []string{"/usr/lib/postgresql/*/bin", "/usr/pgsql-*/bin"}

// findBinaries prefers the installation whose major version matches an
// existing data directory (wantMajor > 0), because a server refuses a data
// directory of another major version; then PATH; then the newest versioned
// directory.
func findBinaries(wantMajor int) (*binaries, error) {
	var candidates []string
	for _, g := range versionDirGlobs {
		dirs, _ := filepath.Glob(g)
		candidates = append(candidates, dirs...)
	}
	sort.Slice(candidates, func(i, j int) bool { return dirMajor(candidates[i]) > dirMajor(candidates[j]) })
	if wantMajor > 0 {
		for _, d := range candidates {
			if dirMajor(d) == wantMajor {
				if b, err := binariesIn(d); err == nil {
					return b, nil
				}
			}
		}
	}
	if b, err := binariesOnPath(); err == nil {
		return b, nil
	}
	for _, d := range candidates {
		if b, err := binariesIn(d); err == nil {
			return b, nil
		}
	}
	return nil, ErrNoBinaries
}

func binariesOnPath() (*binaries, error) {
	var b binaries
	for _, p := range []struct {
		name string
		dst  *string
	}{{"initdb", &b.initdb}, {"pg_ctl", &b.pgctl}, {"postgres", &b.postgres}} {
		path, err := exec.LookPath(p.name)
		if err != nil {
			return nil, err
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil, err
		}
		*p.dst = abs
	}
	return withVersion(&b)
}

func binariesIn(dir string) (*binaries, error) {
	b := binaries{
		initdb:   filepath.Join(dir, "initdb"),
		pgctl:    filepath.Join(dir, "pg_ctl"),
		postgres: filepath.Join(dir, "postgres"),
	}
	for _, p := range []string{b.initdb, b.pgctl, b.postgres} {
		if fi, err := os.Stat(p); err != nil || fi.Mode()&0o111 == 0 {
			return nil, fmt.Errorf("%s is not executable", p)
		}
	}
	return withVersion(&b)
}

var versionRE = regexp.MustCompile(`\(PostgreSQL\) (\d+)`)

// withVersion asks the server binary for its major version, which decides
// whether an existing data directory can be used.
func withVersion(b *binaries) (*binaries, error) {
	out, err := exec.Command(b.postgres, "--version").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --version: %w", b.postgres, err)
	}
	m := versionRE.FindSubmatch(out)
	if m == nil {
		return nil, fmt.Errorf("unrecognised %s --version output %q", b.postgres, out)
	}
	b.major, _ = strconv.Atoi(string(m[1]))
	return b, nil
}

// dirMajor extracts the version from /usr/lib/postgresql/15/bin or
// /usr/pgsql-15/bin; 0 when there is none.
func dirMajor(dir string) int {
	base := filepath.Base(filepath.Dir(dir))
	base = strings.TrimPrefix(base, "pgsql-")
	n, _ := strconv.Atoi(strings.SplitN(base, ".", 2)[0])
	return n
}

// installPostgres installs the distribution's server package with apt-get,
// as root or through passwordless sudo, streaming apt's output to stderr so
// a long first `make run` shows what it is doing.
func installPostgres(ctx context.Context, logf func(string, ...any)) error {
	if runtime.GOOS != "linux" {
		return fmt.Errorf("%w: install PostgreSQL (e.g. `brew install postgresql@15`) or set DATABASE_URL", ErrNoBinaries)
	}
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("%w and apt-get is unavailable: install the PostgreSQL server package or set DATABASE_URL", ErrNoBinaries)
	}
	var prefix []string
	if os.Geteuid() != 0 {
		if _, err := exec.LookPath("sudo"); err != nil {
			return fmt.Errorf("%w; not root and no sudo: run `apt-get install -y postgresql` as root or set DATABASE_URL", ErrNoBinaries)
		}
		prefix = []string{"sudo", "-n"}
	}
	for _, args := range [][]string{{"apt-get", "update"}, {"apt-get", "install", "-y", "--no-install-recommends", "postgresql"}} {
		full := append(append([]string{}, prefix...), args...)
		logf("pgcluster: PostgreSQL not found, running: %s", strings.Join(full, " "))
		cmd := exec.CommandContext(ctx, full[0], full[1:]...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("pgcluster: %s: %w", strings.Join(full, " "), err)
		}
	}
	return nil
}
