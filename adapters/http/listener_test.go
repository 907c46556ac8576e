package http

import (
	"context"
	"io"
	"log/slog"
	"net"
	nethttp "net/http"
	"os"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// exhaustedListener refuses its first accepts as the kernel does once the process has no file
// descriptor left (accept4: too many open files), then accepts.
type exhaustedListener struct {
	net.Listener
	refusals atomic.Int32
}

func (l *exhaustedListener) Accept() (net.Conn, error) {
	if l.refusals.Add(-1) >= 0 {
		return nil, &net.OpError{Op: "accept", Net: "tcp", Addr: l.Addr(), Err: os.NewSyscallError("accept4", syscall.EMFILE)}
	}
	return l.Listener.Accept()
}

// TestServe_OutOfFileDescriptorsDoesNotStopTheServer: a flood of connections up to the process's
// descriptor limit (slow clients, a spike) makes accept fail with EMFILE until some close. The
// server pauses and accepts again, and answers the next client; it used to return the error,
// which stopped the whole process ("corridor stopped with an error: accept tcp4 …: too many
// open files").
func TestServe_OutOfFileDescriptorsDoesNotStopTheServer(t *testing.T) {
	s, err := New(Config{Store: nopStore{}}, nopServices(t), slog.New(slog.NewJSONHandler(io.Discard, nil)))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	exhausted := &exhaustedListener{Listener: ln}
	exhausted.refusals.Store(5)
	served := make(chan error, 1)
	go func() { served <- s.Serve(exhausted) }()
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = s.Shutdown(ctx)
	})

	client := nethttp.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + ln.Addr().String() + "/healthz")
	if err != nil {
		select {
		case serveErr := <-served:
			t.Fatalf("GET /healthz: %v; the server stopped: %v", err, serveErr)
		default:
			t.Fatalf("GET /healthz: %v", err)
		}
	}
	_ = resp.Body.Close()
	if resp.StatusCode != nethttp.StatusOK {
		t.Fatalf("GET /healthz = %d, want 200", resp.StatusCode)
	}
	select {
	case err := <-served:
		t.Fatalf("the server stopped: %v", err)
	default:
	}
}

// TestAcceptOutOfResources: only a lack of descriptors, buffers or memory is retried; a closed
// listener (Shutdown) and other errors end Serve.
func TestAcceptOutOfResources(t *testing.T) {
	wrap := func(errno syscall.Errno) error {
		return &net.OpError{Op: "accept", Net: "tcp", Err: os.NewSyscallError("accept4", errno)}
	}
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM} {
		if !acceptOutOfResources(wrap(errno)) {
			t.Errorf("%v is not retried", errno)
		}
	}
	for _, err := range []error{net.ErrClosed, wrap(syscall.EINVAL), io.EOF} {
		if acceptOutOfResources(err) {
			t.Errorf("%v is retried", err)
		}
	}
}
