package snmp

import (
	"crypto/rand"
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/sirupsen/logrus"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/usm"
)

// ErrConfig is wrapped by every error Config.Validate returns.
var ErrConfig = errors.New("snmp: invalid responder config")

// Limits on the message size (RFC 3417: 484 at least; UDP over IPv4 at most).
const (
	minMessageSize = 484
	maxUDPPayload  = 65507
)

// Config configures a Responder; every field is read once by NewResponder.
type Config struct {
	// Board holds the view served, as the daemon publishes it; nil gives the
	// responder a board of its own, which Publish fills.
	Board *board.Board
	// Communities are the SNMPv1/v2c communities; none means v1/v2c is refused.
	Communities []Community
	// Users are the SNMPv3 USM users (validated when the configuration was
	// loaded); none means every v3 request gets an unknown-user report.
	Users []User
	// EngineID is snmpEngineID (5..32 octets, RFC 3411); empty picks a random one.
	EngineID []byte
	// EngineBoots is snmpEngineBoots as persisted by the daemon (1 or more).
	// LatchedBoots (2147483647) is the value RFC 3414 2.2.2 latches at when
	// boots cannot be kept: every authenticated SNMPv3 message is then outside
	// the time window and gets a notInTimeWindow report, so nothing captured
	// under an earlier boots can be replayed. v1/v2c and unauthenticated
	// discovery still work.
	EngineBoots uint32
	// MaxMessageSize is snmpEngineMaxMessageSize: the largest datagram accepted and
	// the largest response sent. The default, 1472, fills one Ethernet frame without
	// IP fragments; SNMPv1/v2c managers cannot ask for less, SNMPv3 responses also
	// honour the manager's msgMaxSize.
	MaxMessageSize int
	// Workers is the number of SNMPv3 requests handled at once, besides the
	// reading goroutine that answers SNMPv1/v2c requests itself.
	Workers int
	// SysDescr, SysContact, SysName and SysLocation are the MIB-II system strings.
	SysDescr, SysContact, SysName, SysLocation string
	// FaultInjection enables SET of diagFaultInject through a write community or user.
	FaultInjection bool
	// OnClockSkew is called with the skew written to diagFaultClockSkew,
	// which fault injection enables: the daemon's clock for its node list
	// runs that far off from then on. Nil makes the object read-only.
	OnClockSkew func(time.Duration) error
	// OnSetNMS is called with the new station when a manager sets nmsID; its error
	// fails the SET (commitFailed). Nil makes nmsID read-only.
	OnSetNMS func(netip.Addr) error
	// OnPush is called with each push a peer writes to diagPush; nil makes
	// diagPush read-only. Its error makes the SET commitFailed.
	OnPush func(board.Push) error
	// OnVantage is called with each question or answer a peer writes to
	// diagVantage; nil makes diagVantage read-only. Its error makes the
	// SET commitFailed.
	OnVantage func(board.Vantage) error
	// OnRowChange is called with a manager's change of the node list (a
	// diagTree row created or destroyed); ErrRowNoCreation and
	// ErrRowInconsistent choose the SET's error, any other error is
	// commitFailed. Nil makes diagTree read-only.
	OnRowChange func(RowChange) error
	// OnRowCheck, if set, says whether OnRowChange would take a change,
	// making none: an AgentX TestSet checks with it, so that a refused
	// change gets its error (noCreation, inconsistentValue) before any
	// subagent commits.
	OnRowCheck func(RowChange) error
	// OnMaintenance is called with a node's new maintenance window, as a
	// manager sets nodeMaintenanceUntil or nodeMaintenanceFor (the NodeID
	// and its end, the zero time to end it): nodelist.ErrNoMember makes
	// the SET noCreation, any other error commitFailed. Nil makes both
	// read-only.
	OnMaintenance func(node uint32, until time.Time) error
	// OnKeyChange is called with a change of the cluster keys written to
	// diagKeyChange by one of the cluster's users: a verb (mib.KeyInstall,
	// KeyUse, KeyRemove) and a key; its error makes the SET commitFailed.
	// Nil makes diagKeyChange read-only.
	OnKeyChange func(verb int, key [32]byte) error
	// OnHello is called with the NodeID an agent writes to diagHello (it
	// restarted, or its link came back, and asks to be tested now); its
	// error makes the SET commitFailed. Nil makes diagHello read-only.
	OnHello func(node uint32) error
	// OnAuthFailure, when set, is called (on the serving goroutine, so it
	// must not block) with the source of each message that fails
	// authentication, and snmpEnableAuthenTraps reads enabled(1).
	OnAuthFailure func(src netip.Addr)
	// Now is the clock (sysUpTime, engine time, fault injection); nil means time.Now.
	Now func() time.Time
	// Log receives per-packet debug records and worker errors; nil discards them.
	Log *logrus.Entry
}

// LatchedBoots is snmpEngineBoots latched at its maximum (RFC 3414 2.2.2).
const LatchedBoots = 1<<31 - 1

// User is an SNMPv3 user served, with its rights.
type User struct {
	usm.User
	// Write allows SET as this user.
	Write bool
	// Cluster marks a user derived from the cluster key (agent/keyring): an
	// agent of the LAN. When the responder serves one, diagPush and the
	// diagTree rows (the node list), which only agents change, take SETs
	// from such users alone.
	Cluster bool
}

// Community is an SNMPv1/v2c community string with its rights.
type Community struct {
	// Name is the community string.
	Name string
	// Write allows SET through this community.
	Write bool
	// Sources are the networks requests may come from; empty allows any source.
	Sources []netip.Prefix
}

// Default returns the responder's defaults, the configuration file's
// among them (4 workers), and no access.
func Default() Config {
	return Config{
		EngineBoots:    1,
		MaxMessageSize: 1472,
		Workers:        4,
		SysDescr:       "diagagent: distributed fault-management agent, vCube diagnosis",
	}
}

// Validate checks every field and names the first wrong one; it fills nothing.
func (c *Config) Validate() error {
	if c.EngineBoots < 1 || c.EngineBoots > LatchedBoots {
		return fmt.Errorf("%w: EngineBoots %d must be in 1..2147483647", ErrConfig, c.EngineBoots)
	}
	if n := len(c.EngineID); n != 0 && (n < 5 || n > 32) {
		return fmt.Errorf("%w: EngineID has %d octets, want 5..32", ErrConfig, n)
	}
	if c.MaxMessageSize < minMessageSize || c.MaxMessageSize > maxUDPPayload {
		return fmt.Errorf("%w: MaxMessageSize %d must be in %d..%d", ErrConfig, c.MaxMessageSize, minMessageSize, maxUDPPayload)
	}
	if c.Workers < 1 {
		return fmt.Errorf("%w: Workers %d must be at least 1", ErrConfig, c.Workers)
	}
	for i, cm := range c.Communities {
		if cm.Name == "" || len(cm.Name) > 127 {
			return fmt.Errorf("%w: Communities[%d].Name must have 1..127 characters", ErrConfig, i)
		}
	}
	return nil
}

// NewEngineID builds an RFC 3411 engine ID under enterprise 200 with random octets.
func NewEngineID() ([]byte, error) {
	id := []byte{0x80, 0x00, 0x00, 0xc8, 0x05, 0, 0, 0, 0, 0, 0, 0, 0}
	if _, err := rand.Read(id[5:]); err != nil {
		return nil, fmt.Errorf("snmp: engine ID: %w", err)
	}
	return id, nil
}
