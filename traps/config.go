package traps

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/gosnmp/gosnmp"
	"github.com/sirupsen/logrus"
)

// ErrInvalidConfig is wrapped by every error Config.Validate returns.
var ErrInvalidConfig = errors.New("invalid notifier configuration")

// Kind selects the PDU the notifier sends.
type Kind int

// The notification kinds; informs are acknowledged and retried, traps are not.
const (
	TrapV1 Kind = iota + 1
	TrapV2c
	InformV2c
	InformV3
)

// String returns the kind's name as used in configuration files.
func (k Kind) String() string {
	switch k {
	case TrapV1:
		return "trap-v1"
	case TrapV2c:
		return "trap-v2c"
	case InformV2c:
		return "inform-v2c"
	case InformV3:
		return "inform-v3"
	}
	return fmt.Sprintf("Kind(%d)", int(k))
}

// ParseKind turns a configuration string (as Kind.String prints it) into a Kind.
func ParseKind(s string) (Kind, error) {
	for k := TrapV1; k <= InformV3; k++ {
		if k.String() == s {
			return k, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown kind %q (want trap-v1, trap-v2c, inform-v2c or inform-v3)", ErrInvalidConfig, s)
}

// acknowledged reports whether the receiver answers this kind, so it can be retried.
func (k Kind) acknowledged() bool {
	return k == InformV2c || k == InformV3
}

// Destination is one candidate receiver of notifications.
type Destination struct {
	// Addr is "host:port"; a bare host or IPv4 address means port 162.
	Addr string
	// Usable is the caller's verdict, e.g. false when the diagnosis holds the
	// station faulty; the notifier skips stations that are not usable.
	Usable bool
}

// Config holds everything a Notifier needs.
type Config struct {
	// Kind is the PDU to send: TrapV1, TrapV2c, InformV2c or InformV3.
	Kind Kind
	// Community is the community string for v1 and v2c.
	Community string
	// USM holds the SNMPv3 user informs are sent as (usm.User.USM gives it),
	// used only with InformV3; authPriv when it has a privacy protocol,
	// else authNoPriv.
	USM *gosnmp.UsmSecurityParameters
	// Stations returns the candidate stations in order of preference (the
	// station set through nmsID first, then the fall-backs); it is called
	// before every attempt and must be safe for concurrent use.
	Stations func() []Destination
	// QueueSize bounds the notifications waiting to be sent; when it is full
	// the oldest one is dropped.
	QueueSize int
	// Timeout is how long the first attempt of an inform waits for its
	// acknowledgement; each retry doubles it, up to MaxTimeout.
	Timeout time.Duration
	// MaxTimeout caps the doubled timeout of retries.
	MaxTimeout time.Duration
	// MaxAttempts bounds the attempts per inform; 0 retries until the inform
	// is acknowledged, pushed out of the queue, or the notifier is shut down.
	MaxAttempts int
	// Recheck is how long a station that left MaxAttempts informs in a row
	// unanswered (4 when MaxAttempts is 0) is passed over for the next
	// fall-back before it is tried again.
	Recheck time.Duration
	// DrainTimeout is how long Close waits for queued notifications.
	DrainTimeout time.Duration
	// AgentAddress is the agent-addr field of SNMPv1 traps (an IPv4 address).
	AgentAddress string
	// Source is the address notifications leave from (the agent's listen
	// address, so the station sees them come from the agent it knows); the
	// zero value lets the kernel pick.
	Source netip.Addr
	// Uptime returns sysUpTime in hundredths of a second; nil means the time
	// since the Notifier was created.
	Uptime func() uint32
	// Log receives one entry per send failure and drop; nil discards them.
	Log *logrus.Entry
}

// Default returns the notifier's defaults, the configuration file's: v2c
// traps with community "public", a 256-entry queue, and informs (when
// asked for) waiting 5 s and sent 4 times at most.
func Default() Config {
	return Config{
		Kind:         TrapV2c,
		Community:    "public",
		QueueSize:    256,
		Timeout:      5 * time.Second,
		MaxAttempts:  4,
		MaxTimeout:   30 * time.Second,
		Recheck:      time.Minute,
		DrainTimeout: 5 * time.Second,
		AgentAddress: "0.0.0.0",
	}
}
