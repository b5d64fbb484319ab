package daemon

import (
	"context"
	"errors"
	"slices"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/probe"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
)

// TestStarvedAgentDoesLess: while starved, the agent refuses other agents'
// questions until its timers keep time again, and its tests count no loss
// into its own health.
func TestStarvedAgentDoesLess(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	lan, s := newFakeLAN(), &sink{}
	d := newTestDaemon(t, cfg, lan, s, state.State{}, nil)
	d.interval(context.Background())
	ask := board.Vantage{Kind: board.Ask, From: 2, Node: 3, Nonce: 7}
	if err := d.OnVantage(ask); err != nil {
		t.Fatalf("question to an agent at rest: %v", err)
	}
	began := time.Now()
	if sent, lost := d.lossSamples(24, 12, began); sent != 24 || lost != 12 {
		t.Fatalf("loss samples at rest: %d sent, %d lost", sent, lost)
	}
	d.lag.Stalled(began.Add(time.Millisecond))
	if sent, lost := d.lossSamples(24, 12, began); sent != 0 || lost != 0 {
		t.Fatalf("loss samples of a test the agent stalled within: %d sent, %d lost, want none", sent, lost)
	}
	if sent, lost := d.lossSamples(24, 12, began.Add(time.Second)); sent != 24 || lost != 12 {
		t.Fatalf("loss samples of a test begun after a stall: %d sent, %d lost", sent, lost)
	}
	d.lag.Set(true)
	if err := d.OnVantage(ask); !errors.Is(err, ErrVantageBusy) {
		t.Fatalf("question to a starved agent: %v, want ErrVantageBusy", err)
	}
	d.lag.Recover()
	if err := d.OnVantage(ask); err != nil {
		t.Fatalf("question to a starved agent whose timers keep time again: %v, want it queued", err)
	}
	if sent, lost := d.lossSamples(24, 12, began.Add(time.Second)); sent != 0 || lost != 0 {
		t.Fatalf("loss samples while starved: %d sent, %d lost, want none", sent, lost)
	}
	if d.measure() != 0 || d.confirm() != 0 {
		t.Fatalf("a starved agent measures: measure %d, confirm %d", d.measure(), d.confirm())
	}
}

// TestLaggingAgentMeasuresNothing: an agent whose timer runs late, not yet
// starved, still answers questions, but measures no link: its late reads
// would look like the peer's loss, and the bursts add to the load.
func TestLaggingAgentMeasuresNothing(t *testing.T) {
	cfg := testConfig(t, 4, hiadsd.BruteForce, notify.Detected)
	d := newTestDaemon(t, cfg, newFakeLAN(), &sink{}, state.State{}, nil)
	d.cfg.Vantage = DefaultVantage // the fake LAN asks no other agent: New set it to 0
	d.interval(context.Background())
	if got := d.confirm(); got != hiadsd.ConfirmRequests {
		t.Fatalf("confirm at rest = %d, want %d", got, hiadsd.ConfirmRequests)
	}
	d.lag.SetLagging(true)
	if got := d.confirm(); got != 0 {
		t.Fatalf("confirm while lagging = %d, want 0", got)
	}
	if err := d.OnVantage(board.Vantage{Kind: board.Ask, From: 2, Node: 3, Nonce: 7}); err != nil {
		t.Fatalf("question to a lagging agent: %v, want it queued", err)
	}
	d.lag.SetLagging(false)
	if got := d.confirm(); got != hiadsd.ConfirmRequests {
		t.Fatalf("confirm once the lag is over = %d, want %d", got, hiadsd.ConfirmRequests)
	}
}

// askingLAN is a fake LAN whose agents take questions: each diagVantage
// SET returns setErr, and each test asked of it finds found (the interval's
// own, the fake LAN's truth). The answers written to peers are kept.
type askingLAN struct {
	*fakeLAN
	setErr  error
	found   probe.Result
	tested  chan struct{}
	mu      sync.Mutex
	answers []board.Vantage
}

func (a *askingLAN) CanPush() bool                                    { return true }
func (a *askingLAN) Push(context.Context, probe.Target, []byte) error { return nil }
func (a *askingLAN) Stretch(bool)                                     {}

func (a *askingLAN) ProbeInView(ctx context.Context, t probe.Target, v probe.View) probe.Result {
	if !v.Asked {
		return a.Probe(ctx, t)
	}
	a.tested <- struct{}{}
	return a.found
}

func (a *askingLAN) Vantage(_ context.Context, _ probe.Target, b []byte) error {
	if a.setErr != nil {
		return a.setErr
	}
	v, err := board.ParseVantage(b)
	if err != nil {
		return err
	}
	a.mu.Lock()
	a.answers = append(a.answers, v)
	a.mu.Unlock()
	return nil
}

func newAskingDaemon(t *testing.T, lan *askingLAN) *Daemon {
	t.Helper()
	d := newTestDaemon(t, testConfig(t, 4, hiadsd.BruteForce, notify.Detected), lan, &sink{}, state.State{}, nil)
	d.interval(context.Background())
	return d
}

// TestBusyHelpersLeaveAFailureUnheard: a question every helper refuses
// lets the failure stand alone (an older agent without diagVantage:
// notWritable; or busy ones: commitFailed), unless the asker stalled within
// its test and the helpers were busy: then it goes unheard, not believed.
// Under a stall of a whole host every agent is busy, and each failure
// believed alone was a false one.
func TestBusyHelpersLeaveAFailureUnheard(t *testing.T) {
	for _, c := range []struct {
		status  gosnmp.SNMPError
		stalled bool
		want    []hiadsd.Status
	}{
		{gosnmp.CommitFailed, true, nil},
		{gosnmp.CommitFailed, false, []hiadsd.Status{hiadsd.Unknown}},
		{gosnmp.NotWritable, true, []hiadsd.Status{hiadsd.Unknown}},
	} {
		d := newAskingDaemon(t, &askingLAN{fakeLAN: newFakeLAN(), setErr: &probe.SetError{Status: c.status, Index: 1}})
		ask := d.second(2, []int{1, 3})
		if ask == nil {
			t.Fatal("no question asked")
		}
		if c.stalled {
			d.lag.Stalled(time.Now().Add(time.Hour)) // within its test
		}
		var got []hiadsd.Status
		for st := range ask(context.Background()) {
			got = append(got, st)
		}
		d.push.sends.Wait()
		if !slices.Equal(got, c.want) {
			t.Errorf("every helper refusing with %v, the asker stalled %v: the test was handed %v, want %v", c.status, c.stalled, got, c.want)
		}
	}
}

// TestStalledHelperGivesNoFailure: a helper that stalled within its test
// (a tick 100 ms late, before its window says lagging) answers a question
// with what it reached (fault-free) and with a refusal (no agent listens on
// the host), but gives no failure that a request gone unanswered made: that
// may be its own lateness. One that only lags gives it, and so does one
// still starved but recovering, its timers on time again: a stall of the
// host leaves every agent so for 15 to 45 s, and a real failure found
// meanwhile needs a second vantage point.
func TestStalledHelperGivesNoFailure(t *testing.T) {
	timeout := errors.New("request timeout")
	lost := probe.Result{Status: hiadsd.Partial, SNMPErr: timeout, Sent: 3, Unanswered: 3}
	for _, c := range []struct {
		found probe.Result
		host  string // the helper's: stalled within its test, lagging, recovering
		want  []hiadsd.Status
	}{
		{probe.Result{Status: hiadsd.FaultFree}, "stalled", []hiadsd.Status{hiadsd.FaultFree}},
		{lost, "stalled", nil},
		{probe.Result{Status: hiadsd.Faulty, SNMPErr: timeout, Sent: 3, Unanswered: 3}, "stalled", nil},
		{probe.Result{Status: hiadsd.Partial, SNMPErr: syscall.ECONNREFUSED, Sent: 1, Unanswered: 1}, "stalled", []hiadsd.Status{hiadsd.Partial}},
		{lost, "lagging", []hiadsd.Status{hiadsd.Partial}},
		{lost, "recovering", []hiadsd.Status{hiadsd.Partial}},
	} {
		lan := &askingLAN{fakeLAN: newFakeLAN(), found: c.found, tested: make(chan struct{}, 1)}
		d := newAskingDaemon(t, lan)
		switch c.host {
		case "stalled":
			d.lag.Stalled(time.Now().Add(time.Hour)) // within its test
		case "lagging":
			d.lag.SetLagging(true)
		case "recovering":
			d.lag.Recover()
		}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); d.answerQuestions(ctx) }()
		if err := d.OnVantage(board.Vantage{Kind: board.Ask, From: 2, Node: 3, Nonce: 7}); err != nil {
			t.Fatalf("question to a helper: %v", err)
		}
		<-lan.tested
		cancel()
		<-done // answerQuestions waits for its answers
		var got []hiadsd.Status
		for _, a := range lan.answers {
			got = append(got, a.Status)
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("a %s helper that found %v (%v): answered %v, want %v", c.host, c.found.Status, c.found.SNMPErr, got, c.want)
		}
	}
}

// TestStoppedTesterSaysSo: a test within which the agent did not run for a
// second (its host stalled) hands the core its result marked Stopped, so
// that no failure it found is believed (hiadsd: Unheard); a tick 100 ms
// late (a loaded host, not a stopped one) does not mark it.
func TestStoppedTesterSaysSo(t *testing.T) {
	d := newTestDaemon(t, testConfig(t, 4, hiadsd.BruteForce, notify.Detected), newFakeLAN(), &sink{}, state.State{}, nil)
	test := []hiadsd.Op{{Kind: hiadsd.OpTest, Target: 1}}
	run := func() bool {
		return d.batch(context.Background(), test, map[int]probe.Result{}, map[int]probe.View{})[0].Stopped
	}
	if run() {
		t.Fatal("a test at rest marked stopped")
	}
	d.lag.Stalled(time.Now().Add(time.Hour))
	if run() {
		t.Fatal("a test within which a tick ran 100 ms late marked stopped: that is a loaded host, not a stopped one")
	}
	d.lag.Stopped(time.Now().Add(time.Hour))
	if !run() {
		t.Fatal("a test within which the agent stopped for a second not marked stopped")
	}
}

// TestStoppedAskerAsksNobody: a test within which the agent stopped asks
// no helper about its failure (its word is no evidence, and after a stall
// of the whole host every agent's questions would fall on helpers as
// stalled as itself); one that did not stop asks each.
func TestStoppedAskerAsksNobody(t *testing.T) {
	for _, stopped := range []bool{false, true} {
		lan := &askingLAN{fakeLAN: newFakeLAN()}
		d := newAskingDaemon(t, lan)
		ask := d.second(2, []int{1, 3})
		if stopped {
			d.lag.Stopped(time.Now().Add(time.Hour))
		}
		answers := ask(context.Background())
		d.push.sends.Wait() // the questions sent, if any (their answers never come)
		if stopped {
			select {
			case _, open := <-answers:
				if open {
					t.Error("a stopped asker handed its test an answer")
				}
			default:
				t.Error("a stopped asker's test waits for answers")
			}
		}
		if asked := len(lan.answers); asked != map[bool]int{false: 2, true: 0}[stopped] {
			t.Errorf("stopped %v: %d helpers asked", stopped, asked)
		}
	}
}

// TestStaleQuestionDropped: a question that waited longer than three test
// budgets for a free slot (a helper behind a backlog, after a stall) is
// dropped untested, its asker having given up; a fresh one behind it is
// answered.
func TestStaleQuestionDropped(t *testing.T) {
	lan := &askingLAN{fakeLAN: newFakeLAN(), found: probe.Result{Status: hiadsd.FaultFree}, tested: make(chan struct{}, 2)}
	d := newAskingDaemon(t, lan)
	var mu sync.Mutex
	now := time.Now()
	d.now = func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	for nonce := range uint32(2) {
		if err := d.OnVantage(board.Vantage{Kind: board.Ask, From: 2, Node: 3, Nonce: nonce}); err != nil {
			t.Fatalf("question %d: %v", nonce, err)
		}
		if nonce == 0 {
			mu.Lock()
			now = now.Add(3*d.cfg.TestBudget + time.Millisecond) // the first waited longer than three budgets
			mu.Unlock()
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); d.answerQuestions(ctx) }()
	select { // the questions are taken in order: the stale one went first
	case <-lan.tested:
	case <-time.After(time.Minute):
		t.Error("no question tested")
	}
	cancel()
	<-done
	if len(lan.tested) != 0 || len(lan.answers) != 1 || lan.answers[0].Nonce != 1 {
		t.Fatalf("%d more tests, answers %+v; want question 0 dropped untested, question 1 answered", len(lan.tested), lan.answers)
	}
}
