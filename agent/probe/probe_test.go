package probe

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/metrics/metricstest"

	"github.com/diagagent/diagagent/hiadsd"
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
	const n = 6
	var dead [n]Target // ports nobody listens on, one per probe: each has its own last verdict
	for i := range dead {
		dead[i] = Target{Addr: netip.MustParseAddr("127.0.0.1"), Port: probeFreePort(t)}
	}
	cfg := Default()
	cfg.Timeout, cfg.Retries, cfg.Concurrency = 200*time.Millisecond, 0, 2
	g := &gatePinger{entered: make(chan struct{}), release: make(chan error)}
	p, err := New(cfg, g)
	if err != nil {
		t.Fatal(err)
	}
	// Every first test calls for a re-test (the verdict differs from the last),
	// so each probe pings twice: round 1 answers every echo, round 2 none.
	for round, answer := range []error{nil, ErrNoEchoReply} {
		want := []hiadsd.Status{hiadsd.Partial, hiadsd.Faulty}[round]
		results := make(chan Result, n)
		for i := range n {
			go func() { results <- p.Probe(probeContext(t), dead[i]) }()
		}
		for i := range 2 * n {
			select {
			case <-g.entered:
			case <-time.After(10 * time.Second):
				t.Fatalf("round %d: ping %d never started", round, i)
			}
			g.release <- answer
		}
		for range n {
			res := <-results
			if res.Status != want || res.SNMPErr == nil || !res.Retested || res.Suspected != want {
				t.Errorf("round %d: got %+v, want %v after a re-test, with an SNMP error from a port nobody listens on", round, res, want)
			}
		}
	}
	if peak := g.peak.Load(); peak > 2 {
		t.Fatalf("%d pings in flight with Concurrency 2", peak)
	}
	// Every test is counted by its outcome, every re-test as confirmed.
	for outcome, want := range map[string]float64{"partial": n, "faulty": n, "fault-free": 0} {
		if got := metricstest.ToFloat64(p.met.tests.WithLabelValues(outcome)); got != want {
			t.Errorf("diagagent_tests_total{outcome=%q} = %v, want %v", outcome, got, want)
		}
	}
	if got := metricstest.ToFloat64(p.met.retests.WithLabelValues("confirmed")); got != 2*n {
		t.Errorf("diagagent_retests_total{outcome=confirmed} = %v, want %d", got, 2*n)
	}
	if got := metricstest.CollectAndCount(p, "diagagent_test_duration_seconds"); got != 1 {
		t.Errorf("%d test duration histograms, want 1", got)
	}
}

func TestProbeRejectsTargetWithoutAddress(t *testing.T) {
	p := newTestProber(t, nil)
	for _, a := range []netip.Addr{{}, netip.MustParseAddr("::"), netip.MustParseAddr("ff02::1"), netip.MustParseAddr("0.0.0.0")} {
		res := p.Probe(probeContext(t), Target{Addr: a})
		if res.Status != hiadsd.Unknown || !errors.Is(res.SNMPErr, ErrBadTarget) || res.PingErr != nil {
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
		{"TimeoutMin", func(c *Config) { c.TimeoutMin = 2 * c.Timeout }},
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
