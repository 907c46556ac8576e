package pgcluster

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// DefaultRelocateBase is where a kept cluster lives when, as root, the server's account cannot
// reach the data directory asked for: a checkout under /root, which is 0700 by default.
const DefaultRelocateBase = "/var/lib/corridor"

// originFile, next to a relocated data directory, names the data directory it stands for, so
// whoever looks under DefaultRelocateBase can tell which checkout a cluster belongs to.
const originFile = "origin"

// resolveDataDir follows a data directory that is a symbolic link (an earlier relocation's, or
// one a user made to put the data elsewhere) to the directory it names. The server is always
// given that directory: its account may be unable to reach the link itself.
func resolveDataDir(dataDir string) (string, error) {
	fi, err := os.Lstat(dataDir)
	if err != nil || fi.Mode()&os.ModeSymlink == 0 {
		return dataDir, nil
	}
	target, err := os.Readlink(dataDir)
	if err != nil {
		return "", fmt.Errorf("pgcluster: %w", err)
	}
	if !filepath.IsAbs(target) {
		target = filepath.Join(filepath.Dir(dataDir), target)
	}
	target = filepath.Clean(target)
	// The target's data may have been deleted by hand; its parents are made as for any new
	// data directory.
	if err := mkdirParents(target); err != nil {
		return "", err
	}
	return target, nil
}

// relocateIfUnreachable returns dataDir when u can reach it. Otherwise, when dataDir holds no
// cluster yet, it moves the cluster-to-be to base/<hash of dataDir>/postgres, a directory u can
// reach, and leaves a symbolic link at dataDir, so the checkout still shows where its data is
// and later runs find it (resolveDataDir). The ancestors' permissions are left alone: opening
// root's home to every account would be a wider change than running a development database
// calls for. An existing cluster is never moved behind its owner's back: the error stands.
func relocateIfUnreachable(dataDir string, u osUser, base string, logf func(string, ...any)) (string, error) {
	cause := u.checkTraversable(dataDir)
	var ue *UntraversableError
	if cause == nil || !errors.As(cause, &ue) || !isEmptyDir(dataDir) {
		return dataDir, cause
	}
	sum := sha256.Sum256([]byte(dataDir))
	home := filepath.Join(base, hex.EncodeToString(sum[:8]))
	target := filepath.Join(home, "postgres")
	if err := mkdirParents(target); err != nil {
		return "", err
	}
	if err := u.checkTraversable(target); err != nil {
		return "", errors.Join(cause, fmt.Errorf("pgcluster: and the fallback %s is not reachable either: %w", target, err))
	}
	if err := setAside(target, logf); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(home, originFile), []byte(dataDir+"\n"), 0o600); err != nil {
		return "", fmt.Errorf("pgcluster: %w", err)
	}
	if err := os.Remove(dataDir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return "", fmt.Errorf("pgcluster: replace empty %s with a link: %w", dataDir, err)
	}
	if err := os.Symlink(target, dataDir); err != nil {
		return "", fmt.Errorf("pgcluster: %w", err)
	}
	logf("pgcluster: PostgreSQL runs as %q, which cannot enter %s (mode %04o); its data lives in %s instead, linked from %s",
		u.name, ue.Dir, ue.Mode.Perm(), target, dataDir)
	return target, nil
}

// setAside renames a cluster left in a relocation target whose link is gone (the checkout's
// .data was deleted by hand): the new cluster starts empty, as the deletion meant, and the old
// data is kept next to it rather than destroyed.
func setAside(target string, logf func(string, ...any)) error {
	if isEmptyDir(target) {
		return nil
	}
	aside := target + ".orphaned-" + time.Now().UTC().Format("20060102T150405Z")
	if port, _ := runningPort(target, logf); port > 0 {
		return fmt.Errorf("pgcluster: a server still runs in %s, whose link from the data directory is gone; stop it first", target)
	}
	if err := os.Rename(target, aside); err != nil {
		return fmt.Errorf("pgcluster: %w", err)
	}
	logf("pgcluster: %s held a cluster no data directory links to any more; kept it as %s", target, aside)
	return nil
}
