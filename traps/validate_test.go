package traps

import (
	"bytes"
	"errors"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
	"github.com/gosnmp/gosnmp"
)

func TestConfigValidate(t *testing.T) {
	good := testConfig(InformV2c, Destination{Addr: "127.0.0.1:162", Usable: true})
	v3 := good
	v3.Kind = InformV3
	v3.USM = user("u", gosnmp.SHA256, "12345678", gosnmp.AES, "12345678")
	cases := []struct {
		field string // empty: the configuration is valid
		edit  func(*Config)
	}{
		{"", func(*Config) {}},
		{"", func(c *Config) { *c = v3 }},
		{"", func(c *Config) { c.Kind = TrapV1 }},
		{"Kind", func(c *Config) { c.Kind = 0 }},
		{"Stations", func(c *Config) { c.Stations = nil }},
		{"QueueSize", func(c *Config) { c.QueueSize = 0 }},
		{"Timeout", func(c *Config) { c.Timeout = 0 }},
		{"MaxTimeout", func(c *Config) { c.MaxTimeout = c.Timeout / 2 }},
		{"MaxAttempts", func(c *Config) { c.MaxAttempts = -1 }},
		{"DrainTimeout", func(c *Config) { c.DrainTimeout = -time.Second }},
		{"Community", func(c *Config) { c.Community = "" }},
		{"AgentAddress", func(c *Config) { c.Kind, c.AgentAddress = TrapV1, "::1" }},
		{"USM.UserName", func(c *Config) { *c = v3; c.USM = user("", gosnmp.SHA256, "12345678", gosnmp.NoPriv, "") }},
		{"USM.UserName", func(c *Config) { *c = v3; c.USM = nil }},
	}
	for _, c := range cases {
		cfg := good
		c.edit(&cfg)
		err := cfg.Validate()
		switch {
		case c.field == "" && err != nil:
			t.Errorf("valid config rejected: %v", err)
		case c.field != "" && (!errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), c.field)):
			t.Errorf("bad %s: got %v, want an ErrInvalidConfig naming the field", c.field, err)
		}
	}
	if _, err := New(Config{}); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("New(Config{}) = %v, want ErrInvalidConfig", err)
	}
}

func TestParseKind(t *testing.T) {
	for k := TrapV1; k <= InformV3; k++ {
		if got, err := ParseKind(k.String()); err != nil || got != k {
			t.Errorf("ParseKind(%q) = %v, %v", k.String(), got, err)
		}
	}
	if _, err := ParseKind("inform-v1"); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("ParseKind(inform-v1) = %v, want ErrInvalidConfig", err)
	}
}

func TestNMSChangeValidate(t *testing.T) {
	if err := validStation(hiadsd.Station{}); !errors.Is(err, ErrInvalidEvent) {
		t.Errorf("a station with no address accepted: %v", err)
	}
}

func TestBadEventIsRefusedAndNothingQueued(t *testing.T) {
	n := newNotifier(t, testConfig(TrapV2c, Destination{Addr: "127.0.0.1:9", Usable: false}))
	e := testEvent(0)
	if err := n.NodeStatusChange(e); !errors.Is(err, ErrInvalidEvent) {
		t.Fatalf("NodeStatusChange(seq 0) = %v, want ErrInvalidEvent", err)
	}
	if s := n.Stats(); s != (Stats{}) {
		t.Errorf("stats %+v after a refused event, want zero", s)
	}
}

func TestParseStation(t *testing.T) {
	cases := []struct {
		in   string
		want string // empty: an error
	}{
		{"192.0.2.9", "192.0.2.9:162"},
		{"192.0.2.9:1162", "192.0.2.9:1162"},
		{"nms.example:162", "nms.example:162"},
		{"[2001:db8::1]:162", "[2001:db8::1]:162"},
		{"", ""},
		{"192.0.2.9:0", ""},
		{"192.0.2.9:70000", ""},
		{"192.0.2.9:x", ""},
	}
	for _, c := range cases {
		got, err := parseStation(c.in)
		if c.want == "" {
			if err == nil {
				t.Errorf("parseStation(%q) = %v, want an error", c.in, got)
			}
			continue
		}
		if err != nil || got.String() != c.want {
			t.Errorf("parseStation(%q) = %v, %v; want %s", c.in, got, err, c.want)
		}
	}
}

func TestCandidatesSkipUnusableAndMalformed(t *testing.T) {
	got, skipped := candidates([]Destination{
		{Addr: "192.0.2.1", Usable: false},
		{Addr: "192.0.2.2:bad", Usable: true},
		{Addr: "192.0.2.3", Usable: true},
		{Addr: "192.0.2.4:1162", Usable: true},
	})
	if len(got) != 2 || got[0].String() != "192.0.2.3:162" || got[1].String() != "192.0.2.4:1162" || len(skipped) != 1 {
		t.Errorf("candidates = %v, %v; want 192.0.2.3:162, 192.0.2.4:1162 with one malformed skipped", got, skipped)
	}
	if got, _ := candidates([]Destination{{Addr: "192.0.2.1"}}); len(got) != 0 {
		t.Errorf("candidates with no usable station = %v, want none", got)
	}
}

func TestTimeoutDoublesUpToCap(t *testing.T) {
	n := &Notifier{cfg: Config{Timeout: time.Second, MaxTimeout: 5 * time.Second}}
	want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 5 * time.Second, 5 * time.Second}
	for attempt, w := range want {
		if got := n.timeout(attempt); got != w {
			t.Errorf("timeout(%d) = %v, want %v", attempt, got, w)
		}
	}
}

func TestDateAndTime(t *testing.T) {
	at := time.Date(2026, 11, 21, 8, 5, 59, 700*int(time.Millisecond), time.FixedZone("BRT", -3*3600))
	want := []byte{0x07, 0xEA, 11, 21, 11, 5, 59, 7}
	if got := dateAndTime(at); string(got) != string(want) {
		t.Errorf("dateAndTime = % x, want % x (UTC)", got, want)
	}
}

// TestStatusChangeOfAnIPv6Node: nodeAD keeps the paper's IpAddress (0.0.0.0
// for an IPv6 node) and nodeAddrType/nodeAddr carry the address itself.
func TestStatusChangeOfAnIPv6Node(t *testing.T) {
	e := testEvent(5)
	e.Addr = netip.MustParseAddr("2001:db8::4")
	if err := e.Validate(); err != nil {
		t.Fatal(err)
	}
	got := map[string]any{}
	for _, vb := range statusChange(e).vars {
		got[vb.Name] = vb.Value
	}
	want16 := netip.MustParseAddr("2001:db8::4").As16()
	if got[mib.TreeCell(mib.ColNodeAD, 4)] != "0.0.0.0" || got[mib.TreeCell(mib.ColNodeAddrType, 4)] != mib.InetIPv6 ||
		!bytes.Equal(got[mib.TreeCell(mib.ColNodeAddr, 4)].([]byte), want16[:]) {
		t.Errorf("varbinds %v", got)
	}
}

// user is an SNMPv3 user's security parameters, as usm.User.USM makes them.
func user(name string, auth gosnmp.SnmpV3AuthProtocol, authPass string, priv gosnmp.SnmpV3PrivProtocol, privPass string) *gosnmp.UsmSecurityParameters {
	return &gosnmp.UsmSecurityParameters{UserName: name, AuthenticationProtocol: auth, AuthenticationPassphrase: authPass,
		PrivacyProtocol: priv, PrivacyPassphrase: privPass}
}
