package harness

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// BrowserTimeout bounds one browser test: a limit for failure on a loaded machine, not a target.
const BrowserTimeout = 2 * time.Minute

// chromiumNames are the executables Browser looks for, in order, when CHROMIUM is unset.
var chromiumNames = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"}

// ChromiumPath is the headless Chromium the browser tests drive: $CHROMIUM, or the first of
// chromiumNames on PATH. `make test` installs Debian's chromium first when none is found
// (the Makefile's browser target).
func ChromiumPath() (string, error) {
	if p := os.Getenv("CHROMIUM"); p != "" {
		return p, nil
	}
	var err error
	for _, name := range chromiumNames {
		var p string
		if p, err = exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", err
}

// Browser starts a fresh headless Chromium (its own profile, so cookies and storage never
// leak between tests) and returns a chromedp context bound to one tab, cancelled when the
// test ends. A missing Chromium fails the test: `make test` installs one (skipped only
// under -short).
func Browser(t testing.TB) context.Context {
	t.Helper()
	if testing.Short() {
		t.Skip("browser tests need headless Chromium; skipped under -short")
	}
	path, err := ChromiumPath()
	if err != nil {
		t.Fatalf("no headless Chromium on PATH (set CHROMIUM, or run `make browser`): %v", err)
	}
	// The profile is removed after the browser is stopped, best effort: Chromium's helper
	// processes may still be writing to it for a moment, which t.TempDir's cleanup would fail
	// the test for.
	profile, err := os.MkdirTemp("", "corridor-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.NoSandbox, // CI and this machine run tests as root, where Chromium's sandbox refuses to start
		chromedp.DisableGPU,
		chromedp.UserDataDir(profile),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, BrowserTimeout)
	t.Cleanup(func() {
		cancelTimeout()
		cancelTab()
		cancelAlloc()
		for range 20 {
			if os.RemoveAll(profile) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	// Start the browser now so a broken installation fails here, named, not in the first action.
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start headless Chromium %s: %v", path, err)
	}
	return ctx
}

// MobileViewport emulates a phone-sized screen (390×844, touch, device scale 3) for the
// rest of the tab's life.
func MobileViewport() chromedp.Action {
	return chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(3), chromedp.EmulateTouch)
}
