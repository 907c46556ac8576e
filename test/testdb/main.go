package testdb

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Main is a whole TestMain: it provisions the shared server, creates this
// package's database, calls setup with its URL (to migrate it, or to keep
// the URL in a package variable), runs the tests, drops the database, stops
// the server and exits with the tests' status. Interrupts (Ctrl-C, SIGTERM)
// clean up too. setup may be nil.
func Main(m *testing.M, setup func(url string) error) {
	os.Exit(run(m, setup, nil))
}

// MainThen is Main with a check run after the tests: a package whose tests passed fails when
// check reports an error (the harness's outside-call guard).
func MainThen(m *testing.M, setup func(url string) error, check func() error) {
	os.Exit(run(m, setup, check))
}

func run(m *testing.M, setup func(url string) error, check func() error) int {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	srv, err := Shared(ctx)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer Close()
	url, drop, err := srv.NewDatabase(ctx, packageName())
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer dropQuietly(drop)
	stop := cleanupOnSignal(drop)
	defer stop()
	if setup != nil {
		if err := setup(url); err != nil {
			fmt.Fprintf(os.Stderr, "testdb: setup: %v\n", err)
			return 1
		}
	}
	code := m.Run()
	if check != nil {
		if err := check(); err != nil {
			fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
			return 1
		}
	}
	return code
}

// cleanupOnSignal drops the database and releases the server when the test
// binary is interrupted, then exits; the returned func disarms it.
func cleanupOnSignal(drop func() error) func() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case sig := <-ch:
			fmt.Fprintf(os.Stderr, "testdb: %v: cleaning up\n", sig)
			dropQuietly(drop)
			Close()
			os.Exit(130)
		case <-done:
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

func dropQuietly(drop func() error) {
	if err := drop(); err != nil {
		fmt.Fprintf(os.Stderr, "testdb: drop database: %v\n", err)
	}
}

// packageName derives a readable database name hint from the test binary,
// e.g. "store" from /tmp/go-build…/store.test.
func packageName() string {
	return strings.TrimSuffix(filepath.Base(os.Args[0]), ".test")
}

// NewDatabase gives one test its own fresh database on the shared server
// and drops it when the test ends. Use it for tests that must not share the
// package database; the first call provisions the server if Main did not.
func NewDatabase(ctx context.Context, t testing.TB) string {
	t.Helper()
	srv, err := Shared(ctx)
	if err != nil {
		t.Fatal(err)
	}
	url, drop, err := srv.NewDatabase(ctx, t.Name())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := drop(); err != nil {
			t.Errorf("testdb: drop database: %v", err)
		}
	})
	return url
}
