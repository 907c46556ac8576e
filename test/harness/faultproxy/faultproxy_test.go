package faultproxy

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// server is an echo server that records every line it received.
type server struct {
	ln    net.Listener
	mu    sync.Mutex
	lines []string
}

func newServer(t *testing.T) *server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{ln: ln}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go s.echo(c)
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return s
}

func (s *server) echo(c net.Conn) {
	defer c.Close()
	r := bufio.NewReader(c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		s.mu.Lock()
		s.lines = append(s.lines, strings.TrimSpace(line))
		s.mu.Unlock()
		if _, err := c.Write([]byte("echo " + line)); err != nil {
			return
		}
	}
}

func (s *server) received() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.lines...)
}

func start(t *testing.T, s *server) *Proxy {
	t.Helper()
	p, err := Start(s.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// conn is a client connection through the proxy.
type conn struct {
	net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, p *Proxy) conn {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return conn{Conn: c, r: bufio.NewReader(c)}
}

// ask sends a line and reads the answer; the deadline only bounds a test that would hang.
func (c conn) ask(line string, wait time.Duration) (string, error) {
	if _, err := c.Write([]byte(line + "\n")); err != nil {
		return "", err
	}
	_ = c.SetReadDeadline(time.Now().Add(wait))
	answer, err := c.r.ReadString('\n')
	return strings.TrimSpace(answer), err
}

func mustAsk(t *testing.T, c conn, line string) {
	t.Helper()
	if got, err := c.ask(line, 10*time.Second); err != nil || got != "echo "+line {
		t.Fatalf("ask %q: %q, %v", line, got, err)
	}
}

func isReset(err error) bool {
	return errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF)
}

func isSilent(err error) bool { return errors.Is(err, os.ErrDeadlineExceeded) }

func TestProxy_ForwardsWithLatency(t *testing.T) {
	s := newServer(t)
	p := start(t, s)
	p.SetLatency(5 * time.Millisecond)
	c := dial(t, p)
	mustAsk(t, c, "one")
	mustAsk(t, c, "two")
	if got := s.received(); len(got) != 2 {
		t.Fatalf("server received %v", got)
	}
}

func TestProxy_ResetAll(t *testing.T) {
	s := newServer(t)
	p := start(t, s)
	c := dial(t, p)
	mustAsk(t, c, "before")
	p.ResetAll()
	if _, err := c.ask("after", 10*time.Second); !isReset(err) {
		t.Fatalf("after ResetAll: %v, want a reset", err)
	}
	mustAsk(t, dial(t, p), "a new connection")
}

func TestProxy_CutBeforeDelivery(t *testing.T) {
	s := newServer(t)
	p := start(t, s)
	p.Cut(&CutRule{Pattern: []byte("COMMIT")})
	c := dial(t, p)
	mustAsk(t, c, "insert")
	if _, err := c.ask("COMMIT", 10*time.Second); !isReset(err) {
		t.Fatalf("commit: %v, want a reset", err)
	}
	if got := s.received(); len(got) != 1 || got[0] != "insert" {
		t.Fatalf("server received %v; the commit must not reach it", got)
	}
	if p.Cuts() != 1 {
		t.Fatalf("cuts %d", p.Cuts())
	}
}

func TestProxy_CutTheAnswer(t *testing.T) {
	s := newServer(t)
	p := start(t, s)
	p.Cut(&CutRule{Pattern: []byte("echo commit"), FromServer: true, Every: 2, Limit: 1})
	c := dial(t, p)
	mustAsk(t, c, "commit 1") // the first match passes (Every 2)
	if _, err := c.ask("commit 2", 10*time.Second); !isReset(err) {
		t.Fatalf("second commit: %v, want a reset", err)
	}
	if got := s.received(); len(got) != 2 {
		t.Fatalf("server received %v; it must have answered the cut commit", got)
	}
	c = dial(t, p)
	mustAsk(t, c, "commit 3")
	mustAsk(t, c, "commit 4") // the limit of one cut is spent
}

func TestProxy_BlackholeThenBack(t *testing.T) {
	s := newServer(t)
	p := start(t, s)
	open := dial(t, p)
	mustAsk(t, open, "before")
	p.Blackhole(true)
	if _, err := open.ask("lost", 200*time.Millisecond); !isSilent(err) {
		t.Fatalf("open connection in the blackhole: %v, want no answer", err)
	}
	if _, err := dial(t, p).ask("new", 200*time.Millisecond); !isSilent(err) {
		t.Fatalf("new connection in the blackhole: %v, want no answer", err)
	}
	p.Blackhole(false)
	_ = open.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := open.r.ReadString('\n'); !isReset(err) {
		t.Fatalf("a connection that lost bytes: %v, want a reset", err)
	}
	mustAsk(t, dial(t, p), "after")
	for _, line := range s.received() {
		if line == "lost" || line == "new" {
			t.Fatalf("the blackhole forwarded %q", line)
		}
	}
}

func TestProxy_PauseHoldsBytes(t *testing.T) {
	s := newServer(t)
	p := start(t, s)
	c := dial(t, p)
	p.Pause()
	if _, err := c.ask("held", 200*time.Millisecond); !isSilent(err) {
		t.Fatalf("while paused: %v, want no answer yet", err)
	}
	p.Resume()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if got, err := c.r.ReadString('\n'); err != nil || strings.TrimSpace(got) != "echo held" {
		t.Fatalf("after resume: %q, %v", got, err)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for range 500 {
		if cond() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("condition not reached")
}

func TestProxy_HoldRepliesAfterTheServerGotTheRequest(t *testing.T) {
	s := newServer(t)
	p := start(t, s)
	c := dial(t, p)
	p.HoldReplies()
	if _, err := c.ask("slow", 200*time.Millisecond); !isSilent(err) {
		t.Fatalf("while replies are held: %v, want no answer yet", err)
	}
	waitFor(t, func() bool { return len(s.received()) == 1 })
	p.Resume()
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if got, err := c.r.ReadString('\n'); err != nil || strings.TrimSpace(got) != "echo slow" {
		t.Fatalf("after resume: %q, %v", got, err)
	}
}
