package http

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"syscall"
	"time"
)

// Bounds of the pause after an accept refused for want of resources.
const (
	acceptRetryFirst = 5 * time.Millisecond
	acceptRetryMax   = time.Second
)

// Listen serves HTTP on addr until Shutdown.
func (s *Server) Listen(addr string) error {
	ln, err := net.Listen(s.fiber.Config().Network, addr)
	if err != nil {
		return fmt.Errorf("failed to listen: %w", err)
	}
	return s.Serve(ln)
}

// Serve serves HTTP on ln until Shutdown. An accept the kernel refuses for want of resources (the
// process's file descriptors exhausted by open connections, EMFILE; the system's, ENFILE; no
// buffer space or memory) is retried after a pause, as net/http does, rather than ending the
// server: fasthttp takes any accept error but a time-out as permanent and returns it, so a flood
// of connections up to the descriptor limit stopped the whole process. Connections already
// accepted keep being served meanwhile, and HTTP_READ_TIMEOUT and HTTP_IDLE_TIMEOUT close the
// idle and slow ones, which frees descriptors.
func (s *Server) Serve(ln net.Listener) error {
	return s.fiber.Listener(&retryingListener{Listener: ln, log: s.log})
}

// retryingListener retries accepts refused for want of resources, pausing 5 ms and doubling up
// to a second between tries; it logs a warning at most once a second while they fail.
type retryingListener struct {
	net.Listener
	log    *slog.Logger
	logged time.Time
}

// Accept waits for the next connection; only errors that are not a lack of resources (the
// listener closed by Shutdown among them) end it.
func (l *retryingListener) Accept() (net.Conn, error) {
	var delay time.Duration
	for {
		c, err := l.Listener.Accept()
		if err == nil || !acceptOutOfResources(err) {
			return c, err
		}
		delay = min(max(2*delay, acceptRetryFirst), acceptRetryMax)
		if now := time.Now(); now.Sub(l.logged) >= time.Second {
			l.logged = now
			l.log.Warn("cannot accept connections: out of resources (open file descriptors?); retrying",
				"error", err.Error(), "retryIn", delay.String())
		}
		time.Sleep(delay)
	}
}

// acceptOutOfResources reports an accept refused for a lack of descriptors, buffers or memory:
// it passes once connections close.
func acceptOutOfResources(err error) bool {
	for _, errno := range []syscall.Errno{syscall.EMFILE, syscall.ENFILE, syscall.ENOBUFS, syscall.ENOMEM} {
		if errors.Is(err, errno) {
			return true
		}
	}
	return false
}
