// Package faultproxy is a TCP proxy for tests that puts network faults between the service and
// what it dials (PostgreSQL, a chain node): latency, every connection reset at once, a
// connection reset when the client sends, or the server answers, chosen bytes, a server whose
// answers are held, a blackhole that accepts connections and never answers, and a pause that holds bytes
// until resumed. It is written for the fault tests of issue #30; nothing in production uses it.
package faultproxy

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// bufferSize is the largest chunk forwarded at once.
const bufferSize = 32 * 1024

// Proxy listens on a loopback port and forwards each connection to its target.
type Proxy struct {
	target   string
	listener net.Listener

	latency   atomic.Int64 // nanoseconds added before each forwarded chunk
	blackhole atomic.Bool

	mu      sync.Mutex
	links   map[*link]struct{}
	resumed chan struct{} // closed while not paused
	replies chan struct{} // closed while the server's answers are not held
	cut     *CutRule
	cuts    int // connections reset by cut so far
	matches int // chunks that matched cut's pattern so far
	closed  bool
	wg      sync.WaitGroup
}

// CutRule resets a connection when a chunk contains Pattern (bytes, case-sensitive): a chunk
// the client sends (the statement never reaches the server, so its transaction cannot commit)
// or, with FromServer, a chunk the server answers (the server did the work, a COMMIT committed,
// and the client cannot tell). The matching chunk is dropped. Every n > 1 cuts only each n-th
// match, so some units get through; Limit > 0 stops after that many cuts.
type CutRule struct {
	Pattern    []byte
	FromServer bool
	Every      int
	Limit      int
}

// Start listens on 127.0.0.1 and forwards to target (host:port).
func Start(target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	resumed := make(chan struct{})
	close(resumed)
	replies := make(chan struct{})
	close(replies)
	p := &Proxy{target: target, listener: ln, links: map[*link]struct{}{}, resumed: resumed, replies: replies}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *Proxy) Addr() string { return p.listener.Addr().String() }

// SetLatency delays every chunk forwarded, in either direction, by d (0: none).
func (p *Proxy) SetLatency(d time.Duration) { p.latency.Store(int64(d)) }

// ResetAll resets every open connection (TCP RST on both sides); new ones are accepted as before.
func (p *Proxy) ResetAll() {
	p.mu.Lock()
	links := make([]*link, 0, len(p.links))
	for l := range p.links {
		links = append(links, l)
	}
	p.mu.Unlock()
	for _, l := range links {
		l.reset()
	}
}

// Cut installs rule (nil removes it) for every connection, open or new.
func (p *Proxy) Cut(rule *CutRule) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.cut, p.cuts, p.matches = rule, 0, 0
}

// Cuts is how many connections the current rule has reset.
func (p *Proxy) Cuts() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cuts
}

// Blackhole, on, makes the proxy a peer that accepts connections and never answers: bytes in
// either direction are read and dropped, on open connections and new ones. Off, it resets the
// connections that lost bytes (their protocol state is gone) and forwards again.
func (p *Proxy) Blackhole(on bool) {
	p.blackhole.Store(on)
	if !on {
		p.mu.Lock()
		var lossy []*link
		for l := range p.links {
			if l.dropped.Load() {
				lossy = append(lossy, l)
			}
		}
		p.mu.Unlock()
		for _, l := range lossy {
			l.reset()
		}
	}
}

// Pause holds every byte, in either direction, until Resume; nothing is lost.
func (p *Proxy) Pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.resumed:
		p.resumed = make(chan struct{})
	default:
	}
}

// Resume forwards what Pause or HoldReplies held and everything after it.
func (p *Proxy) Resume() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, ch := range []chan struct{}{p.resumed, p.replies} {
		select {
		case <-ch:
		default:
			close(ch)
		}
	}
}

// HoldReplies forwards what the client sends and holds what the server answers until Resume:
// a server that does the work and then does not answer in time.
func (p *Proxy) HoldReplies() {
	p.mu.Lock()
	defer p.mu.Unlock()
	select {
	case <-p.replies:
		p.replies = make(chan struct{})
	default:
	}
}

// Close stops listening, resets every connection and waits for the proxy's goroutines.
func (p *Proxy) Close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	_ = p.listener.Close()
	p.Resume()
	p.ResetAll()
	p.wg.Wait()
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		client, err := p.listener.Accept()
		if err != nil {
			return
		}
		p.wg.Add(1)
		go p.serve(client)
	}
}

// link is one proxied connection.
type link struct {
	client, server net.Conn
	once           sync.Once
	dropped        atomic.Bool
}

// reset closes both sides with SO_LINGER 0, so each peer sees a TCP RST, not an orderly close.
func (l *link) reset() {
	l.once.Do(func() {
		for _, c := range []net.Conn{l.client, l.server} {
			if tcp, ok := c.(*net.TCPConn); ok {
				_ = tcp.SetLinger(0)
			}
			_ = c.Close()
		}
	})
}

func (p *Proxy) serve(client net.Conn) {
	defer p.wg.Done()
	server, err := net.DialTimeout("tcp", p.target, 5*time.Second)
	if err != nil {
		l := &link{client: client, server: nopConn{}}
		l.reset()
		return
	}
	l := &link{client: client, server: server}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		l.reset()
		return
	}
	p.links[l] = struct{}{}
	p.mu.Unlock()
	var both sync.WaitGroup
	both.Add(2)
	go func() { defer both.Done(); p.pipe(l, client, server, true) }()
	go func() { defer both.Done(); p.pipe(l, server, client, false) }()
	both.Wait()
	l.reset()
	p.mu.Lock()
	delete(p.links, l)
	p.mu.Unlock()
}

// pipe forwards from src to dst until either side ends, applying the faults; fromClient says
// the direction (the cut rule watches what the client sends).
func (p *Proxy) pipe(l *link, src, dst net.Conn, fromClient bool) {
	defer l.reset()
	buf := make([]byte, bufferSize)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.forward(l, dst, buf[:n], fromClient) {
			return
		}
		if err != nil {
			return
		}
	}
}

// forward writes one chunk, or drops it (blackhole), or resets the link (cut); false ends the pipe.
func (p *Proxy) forward(l *link, dst net.Conn, chunk []byte, fromClient bool) bool {
	p.mu.Lock()
	resumed, replies := p.resumed, p.replies
	p.mu.Unlock()
	<-resumed
	if !fromClient {
		<-replies
	}
	if d := time.Duration(p.latency.Load()); d > 0 {
		time.Sleep(d)
	}
	if p.blackhole.Load() {
		l.dropped.Store(true)
		return true
	}
	if p.matchCut(chunk, fromClient) {
		l.reset()
		return false
	}
	_, err := dst.Write(chunk)
	return err == nil
}

// matchCut reports whether chunk, sent by the client or the server, triggers the cut rule.
func (p *Proxy) matchCut(chunk []byte, fromClient bool) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	rule := p.cut
	if rule == nil || rule.FromServer == fromClient || (rule.Limit > 0 && p.cuts >= rule.Limit) || !bytes.Contains(chunk, rule.Pattern) {
		return false
	}
	p.matches++
	if rule.Every > 1 && p.matches%rule.Every != 0 {
		return false
	}
	p.cuts++
	return true
}

// nopConn stands in for a server that could not be dialled.
type nopConn struct{ net.Conn }

func (nopConn) Close() error { return nil }
