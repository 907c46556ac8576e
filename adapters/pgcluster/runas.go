package pgcluster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// osUser is the account the server programs run as. PostgreSQL refuses to
// run as root, so as root we switch to an unprivileged account; otherwise
// uid is -1 and programs run as ourselves.
type osUser struct {
	name     string
	uid, gid int
}

func (u osUser) switched() bool { return u.uid >= 0 }

// serviceUserName is the account created when no `postgres` account exists.
const serviceUserName = "corridor"

// chooseUser picks who runs the server: ourselves when not root; as root the
// owner of an existing data directory (so a directory initialised earlier
// keeps working), else `postgres`, else `corridor`, created if needed.
func chooseUser(dataDir string, logf func(string, ...any)) (osUser, error) {
	if os.Geteuid() != 0 {
		return osUser{uid: -1, gid: -1}, nil
	}
	if fi, err := os.Stat(filepath.Join(dataDir, "PG_VERSION")); dataDir != "" && err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && st.Uid != 0 {
			name := strconv.Itoa(int(st.Uid))
			if u, err := user.LookupId(name); err == nil {
				name = u.Username
			}
			return osUser{name: name, uid: int(st.Uid), gid: int(st.Gid)}, nil
		}
	}
	for _, name := range []string{"postgres", serviceUserName} {
		if u, err := lookupUser(name); err == nil {
			return u, nil
		}
	}
	if err := createServiceUser(logf); err != nil {
		return osUser{}, err
	}
	return lookupUser(serviceUserName)
}

func lookupUser(name string) (osUser, error) {
	u, err := user.Lookup(name)
	if err != nil {
		return osUser{}, err
	}
	uid, err1 := strconv.Atoi(u.Uid)
	gid, err2 := strconv.Atoi(u.Gid)
	if err1 != nil || err2 != nil || uid == 0 {
		return osUser{}, fmt.Errorf("pgcluster: account %s (uid %s) is unusable", name, u.Uid)
	}
	return osUser{name: name, uid: uid, gid: gid}, nil
}

// createServiceUser adds a system account with useradd (glibc distributions)
// or busybox adduser (Alpine).
func createServiceUser(logf func(string, ...any)) error {
	attempts := [][]string{
		{"useradd", "--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", serviceUserName},
		{"adduser", "-S", "-D", "-H", serviceUserName},
	}
	var errs []string
	for _, args := range attempts {
		if _, err := exec.LookPath(args[0]); err != nil {
			continue
		}
		logf("pgcluster: running as root; creating system user %s for PostgreSQL: %s", serviceUserName, strings.Join(args, " "))
		out, err := exec.Command(args[0], args[1:]...).CombinedOutput()
		if err == nil {
			return nil
		}
		errs = append(errs, fmt.Sprintf("%s: %v: %s", args[0], err, bytes.TrimSpace(out)))
	}
	return fmt.Errorf("pgcluster: running as root and no unprivileged account for PostgreSQL could be created (%s); create a user named postgres or run as a normal user", strings.Join(errs, "; "))
}

// command builds an exec.Cmd that runs as u. It runs in "/" because the
// caller's working directory (say /root/project) may be closed to u, and in
// its own process group so Ctrl-C on `make run` does not kill the server
// behind our back.
func (u osUser) command(ctx context.Context, name string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = "/"
	cmd.Env = append(os.Environ(), "LC_ALL=C", "PGTZ=UTC")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if u.switched() {
		cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(u.uid), Gid: uint32(u.gid)} //nolint:gosec // ids come from the system user database
	}
	return cmd
}

// run runs a program as u and returns its output in the error on failure.
func (u osUser) run(ctx context.Context, name string, args ...string) ([]byte, error) {
	out, err := u.command(ctx, name, args...).CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("pgcluster: %s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return out, nil
}

// chown hands dir (not recursively: it is empty or already ours) to u.
func (u osUser) chown(dir string) error {
	if !u.switched() {
		return nil
	}
	return os.Chown(dir, u.uid, u.gid)
}

// UntraversableError reports an ancestor directory of the data directory that
// the server's account cannot enter. PostgreSQL needs to reach its data
// directory by path, so every ancestor must be searchable (x) for it.
type UntraversableError struct {
	Dir     string // the ancestor that blocks
	Mode    os.FileMode
	User    string // the account PostgreSQL runs as
	DataDir string
}

func (e *UntraversableError) Error() string {
	return fmt.Sprintf("pgcluster: PostgreSQL runs as %q (it refuses root), but %s (mode %04o) does not let it reach %s; "+
		"either `chmod o+x %s`, choose a data directory elsewhere (e.g. under /var/tmp), or set DATABASE_URL",
		e.User, e.Dir, e.Mode.Perm(), e.DataDir, e.Dir)
}

// checkTraversable walks from / to the parent of dataDir and checks the
// permission bits u gets on each (ACLs are ignored).
func (u osUser) checkTraversable(dataDir string) error {
	if !u.switched() {
		return nil
	}
	groups := map[int]bool{u.gid: true}
	if uu, err := user.LookupId(strconv.Itoa(u.uid)); err == nil {
		ids, _ := uu.GroupIds()
		for _, id := range ids {
			if n, err := strconv.Atoi(id); err == nil {
				groups[n] = true
			}
		}
	}
	for dir := filepath.Dir(dataDir); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err != nil {
			return err
		}
		if !searchable(fi, u.uid, groups) {
			return &UntraversableError{Dir: dir, Mode: fi.Mode(), User: u.name, DataDir: dataDir}
		}
		if dir == filepath.Dir(dir) {
			return nil
		}
	}
}

func searchable(fi os.FileInfo, uid int, groups map[int]bool) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return true
	}
	mode := fi.Mode().Perm()
	switch {
	case int(st.Uid) == uid:
		return mode&0o100 != 0
	case groups[int(st.Gid)]:
		return mode&0o010 != 0
	default:
		return mode&0o001 != 0
	}
}
