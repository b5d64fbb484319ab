package probe

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/diagagent/diagagent/agent/usm"
)

// ErrConfig is wrapped by every error Config.Validate returns.
var ErrConfig = errors.New("probe: invalid prober config")

// Config configures a Prober: how hard to try SNMP, then ping, and as whom.
type Config struct {
	// TimeoutMin and Timeout are the floor and ceiling of the wait for one
	// SNMP reply before a retry, which follows each peer's measured round
	// trip (SRTT + 4·RTTVAR); a re-test, a fetch and a push wait the ceiling.
	TimeoutMin, Timeout time.Duration
	// Retries is how many times an unanswered request of a first test is
	// sent again, so one lost datagram never makes a node faulty.
	Retries int
	// PingTimeout bounds the ICMP echo check of a re-test, and PingCount is
	// the echo requests it sends; one reply makes a node partial.
	PingTimeout time.Duration
	PingCount   int
	// Concurrency bounds the tests and fetches in flight, one UDP socket each.
	Concurrency int
	// PingPrivileged selects raw ICMP sockets (root or CAP_NET_RAW); false uses
	// unprivileged ICMP datagram sockets, which net.ipv4.ping_group_range must allow.
	PingPrivileged bool
	// MaxRepetitions caps the max-repetitions of one GETBULK of a fetch.
	MaxRepetitions int
	// Community is the SNMPv2c community used for testing nodes when V3 is nil.
	Community string
	// WriteCommunity is the SNMPv2c community pushes are written with when
	// V3 is nil (the peers' snmp.communities.write); empty sends no pushes.
	WriteCommunity string
	// V3 selects SNMPv3 (USM) for testing nodes; nil means SNMPv2c.
	V3 *usm.User
	// Others are users tried, in order, with a peer that refuses V3 as an
	// unknown user or with a wrong digest: the other keys of the cluster's
	// keyring, so that a peer a rotation has not reached yet, or has
	// reached first, is still spoken to (Prober.SetUsers changes them).
	Others []usm.User
	// KeepFor is how long the socket of a test answered at once waits for
	// the next test of its peer (Prober.idle), kept only for a peer tested
	// so within KeepFor before; 0 keeps none. An agent keeps it an interval
	// and a half: the full plan tests the same peers every interval, while
	// a rotating plan's come back only after log2 N intervals.
	KeepFor time.Duration
	// Source is the address tests and fetches leave from (SNMP and ICMP), so
	// peers see requests from the address the agent serves on; the zero value
	// lets the kernel pick.
	Source netip.Addr
}

// Default returns the prober's defaults, the configuration file's: usable
// on a LAN with community "public".
func Default() Config {
	return Config{
		TimeoutMin:     50 * time.Millisecond,
		Timeout:        time.Second,
		Retries:        3,
		PingTimeout:    2 * time.Second,
		PingCount:      2,
		Concurrency:    8,
		PingPrivileged: true,
		MaxRepetitions: 64,
		Community:      "public",
		KeepFor:        3 * time.Second, // the default interval's and a half
	}
}

// TestBudget is the longest one test of a peer can take: every SNMP try
// at the ceiling, then the echo check.
func (c Config) TestBudget() time.Duration {
	return c.Timeout*time.Duration(c.Retries+1) + c.PingTimeout
}

// Validate names the first field that is out of range; it fills in nothing
// (a zero Concurrency would block every probe).
func (c Config) Validate() error {
	switch {
	case c.TimeoutMin <= 0 || c.TimeoutMin > c.Timeout:
		return fmt.Errorf("%w: TimeoutMin %s: want > 0 and <= Timeout %s", ErrConfig, c.TimeoutMin, c.Timeout)
	case c.Retries < 0:
		return fmt.Errorf("%w: Retries %d: want >= 0", ErrConfig, c.Retries)
	case c.PingTimeout <= 0:
		return fmt.Errorf("%w: PingTimeout %s: want > 0", ErrConfig, c.PingTimeout)
	case c.PingCount < 1:
		return fmt.Errorf("%w: PingCount %d: want >= 1", ErrConfig, c.PingCount)
	case c.Concurrency < 1:
		return fmt.Errorf("%w: Concurrency %d: want >= 1", ErrConfig, c.Concurrency)
	case c.MaxRepetitions < 1 || c.MaxRepetitions > 1000:
		return fmt.Errorf("%w: MaxRepetitions %d: want 1..1000", ErrConfig, c.MaxRepetitions)
	case c.KeepFor < 0:
		return fmt.Errorf("%w: KeepFor %s: want >= 0", ErrConfig, c.KeepFor)
	case c.V3 == nil && c.Community == "":
		return fmt.Errorf("%w: Community is empty and no V3 user is set", ErrConfig)
	}
	return nil
}
