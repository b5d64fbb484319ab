package probe

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diagagent/diagagent/mib"
)

// upLine overrides hiADSDisUP.0 in a test snmpd.
func upLine(v string) string {
	return "override " + mib.HiADSDisUP0 + ` octet_str "` + v + `"`
}

// gatePinger is a Pinger that answers only when the test releases it and
// records how many pings were in flight at once.
type gatePinger struct {
	entered  chan struct{}
	release  chan error
	inflight atomic.Int32
	peak     atomic.Int32
}

func (g *gatePinger) Ping(ctx context.Context, _ netip.Addr) (time.Duration, error) {
	n := g.inflight.Add(1)
	defer g.inflight.Add(-1)
	for p := g.peak.Load(); n > p && !g.peak.CompareAndSwap(p, n); p = g.peak.Load() {
	}
	g.entered <- struct{}{}
	select {
	case err := <-g.release:
		return time.Millisecond, err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func TestProbeBoundsConcurrencyAndMapsPing(t *testing.T) {
	dead := Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: probeFreePort(t)} // nobody listens
	cfg := Default()
	cfg.Timeout, cfg.Retries, cfg.Concurrency = 200*time.Millisecond, 0, 2
	g := &gatePinger{entered: make(chan struct{}), release: make(chan error)}
	p, err := New(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	const n = 6
	results := make(chan Result, n)
	for range n {
		go func() { results <- p.Probe(probeContext(t), dead) }()
	}
	for i := range n {
		select {
		case <-g.entered:
		case <-time.After(10 * time.Second):
			t.Fatalf("ping %d never started", i)
		}
		var answer error
		if i%2 == 1 {
			answer = ErrNoEchoReply
		}
		g.release <- answer
	}
	counts := map[mib.Status]int{}
	for range n {
		res := <-results
		counts[res.Status]++
		if res.SNMPErr == nil {
			t.Errorf("got %+v, want an SNMP error from a port nobody listens on", res)
		}
	}
	if counts[mib.StatusPartial] != n/2 || counts[mib.StatusFaulty] != n/2 {
		t.Fatalf("statuses %v: want %d partial (echo) and %d faulty (no echo)", counts, n/2, n/2)
	}
	if peak := g.peak.Load(); peak > 2 {
		t.Fatalf("%d pings in flight with Concurrency 2", peak)
	}
}

func TestProbeRejectsTargetWithoutAddress(t *testing.T) {
	p := newTestProber(t, nil)
	for _, a := range []netip.Addr{{}, netip.MustParseAddr("::"), netip.MustParseAddr("ff02::1"), netip.MustParseAddr("0.0.0.0")} {
		res := p.Probe(probeContext(t), Target{Addr: a})
		if res.Status != mib.StatusUnknown || !errors.Is(res.SNMPErr, ErrBadTarget) || res.PingErr != nil {
			t.Errorf("%q: got %+v, want unknown with ErrBadTarget and no ping", a, res)
		}
		if _, err := p.FetchRows(probeContext(t), Target{Addr: a}, 1, 2); !errors.Is(err, ErrBadTarget) {
			t.Errorf("%q: FetchRows error %v, want ErrBadTarget", a, err)
		}
	}
	if _, err := (&ICMPPinger{Count: 1}).Ping(probeContext(t), netip.MustParseAddr("127.0.0.1")); !errors.Is(err, ErrConfig) {
		t.Errorf("zero ping timeout: %v, want ErrConfig", err)
	}
}

func TestProbeConfigValidate(t *testing.T) {
	cases := []struct {
		field string
		edit  func(*Config)
	}{
		{"Timeout", func(c *Config) { c.Timeout = 0 }},
		{"Retries", func(c *Config) { c.Retries = -1 }},
		{"PingTimeout", func(c *Config) { c.PingTimeout = -time.Second }},
		{"PingCount", func(c *Config) { c.PingCount = 0 }},
		{"Concurrency", func(c *Config) { c.Concurrency = 0 }},
		{"MaxRepetitions", func(c *Config) { c.MaxRepetitions = 0 }},
		{"Community", func(c *Config) { c.Community = "" }},
	}
	if err := Default().Validate(); err != nil {
		t.Fatalf("default config: %v", err)
	}
	for _, c := range cases {
		cfg := Default()
		c.edit(&cfg)
		err := cfg.Validate()
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.field) {
			t.Errorf("%s: got %v, want ErrConfig naming the field", c.field, err)
		}
		if _, err := New(cfg, nil); err == nil {
			t.Errorf("%s: New accepted an invalid config", c.field)
		}
	}
}
