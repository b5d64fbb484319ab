//go:build linux

package lan

import (
	"cmp"
	"fmt"
	"path/filepath"
	"strconv"
	"time"
)

// SwimPort is the UDP and TCP port of every memberlist member.
const SwimPort = 7946

// Swim runs one hashicorp/memberlist member (cmd/swimmember, its own Go
// module) on each of the first n hosts of a LAN the caller built: member
// k+1 on host k, joined through host 0's member. Its view changes arrive as
// Events: New is alive, suspect, dead or left, or Raised and Refuted.
type Swim struct {
	Net   *Net
	Bin   string        // the swimmember binary
	Dir   string        // member<k+1>.log files
	Probe time.Duration // probe interval, the other timers scaled with it; 0: DefaultLANConfig's 1 s
	Wave  int           // StartAll starts this many members at a time; 0: all at once
	Key   string        // memberlist's SecretKey in base64; "" runs without encryption
	procs []*Proc
	*eventLog
}

// NewSwim prepares n members; Start or StartAll runs them.
func NewSwim(nw *Net, bin, dir string, n int) (*Swim, error) {
	if n < 2 || n > len(nw.Hosts) {
		return nil, fmt.Errorf("lan: %d members on %d hosts: want 2 to %d", n, len(nw.Hosts), len(nw.Hosts))
	}
	return &Swim{Net: nw, Bin: bin, Dir: dir, procs: make([]*Proc, n), eventLog: newEventLog()}, nil
}

// Start runs member k+1. It joins through host 0's member, and host 0's
// member joins through host 1's when it restarts; on the first start it
// is the one the others join.
func (s *Swim) Start(k int) error {
	if s.procs[k] != nil {
		return fmt.Errorf("lan: member %d is already running", k+1)
	}
	args := []string{"-id", strconv.Itoa(k + 1), "-bind", s.Net.Addrs[k].String(), "-port", strconv.Itoa(SwimPort)}
	if s.Probe > 0 {
		args = append(args, "-probe", s.Probe.String())
	}
	if s.Key != "" {
		args = append(args, "-key", s.Key)
	}
	switch {
	case k != 0:
		args = append(args, "-join", fmt.Sprintf("%s:%d", s.Net.Addrs[0], SwimPort))
	case s.procs[1] != nil: // host 0 restarting: the cluster exists without it
		args = append(args, "-join", fmt.Sprintf("%s:%d", s.Net.Addrs[1], SwimPort))
	}
	p, err := StartLogged(s.Net.Hosts[k], filepath.Join(s.Dir, fmt.Sprintf("member%d.log", k+1)), s.record, s.Bin, args...)
	if err != nil {
		return err
	}
	s.procs[k] = p
	return nil
}

// StartAll runs every member and waits until each holds every other alive.
// With Wave > 0 it starts them Wave at a time, each wave once the members
// before it agree, as a LAN that is switched on over minutes would; timeout
// bounds the whole start.
func (s *Swim) StartAll(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	wave := cmp.Or(s.Wave, len(s.procs))
	for from := 0; from < len(s.procs); from += wave {
		to := min(from+wave, len(s.procs))
		for k := from; k < to; k++ {
			if err := s.Start(k); err != nil {
				return err
			}
		}
		err := s.WaitLatest(time.Until(deadline), func(now map[[2]int]string) bool { return allHold(now, to, "alive") })
		if err != nil {
			return fmt.Errorf("lan: memberlist members 1 to %d do not all see each other alive: %w", to, err)
		}
	}
	return nil
}

// Kill ends member k+1 with SIGKILL and waits for it.
func (s *Swim) Kill(k int) error {
	p := s.procs[k]
	if p == nil {
		return fmt.Errorf("lan: member %d is not running", k+1)
	}
	s.procs[k] = nil
	return p.Kill()
}

// Proc is member k+1's process, nil when it is not running.
func (s *Swim) Proc(k int) *Proc { return s.procs[k] }

// Close stops every member (SIGTERM: it shuts memberlist down).
func (s *Swim) Close() error { return stopAll(s.procs, 5*time.Second) }

// allHold reports whether, in now (Latest), each of n members' view of
// every other member is want.
func allHold(now map[[2]int]string, n int, want string) bool {
	for o := 1; o <= n; o++ {
		for m := 1; m <= n; m++ {
			if o != m && now[[2]int{o, m}] != want {
				return false
			}
		}
	}
	return true
}

// latest is each (Self, Node) pair's latest status among evs; the Raised
// and Refuted lines are no status.
func latest(evs []Event) map[[2]int]string {
	now := map[[2]int]string{}
	for _, e := range evs {
		if e.Change() {
			now[[2]int{e.Self, e.Node}] = e.New
		}
	}
	return now
}
