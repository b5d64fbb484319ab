package config

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/agent/parts"
)

// fakeLookup resolves from a table.
func fakeLookup(table map[string][]netip.Addr) Lookup {
	return func(ctx context.Context, host string) (netip.Addr, error) {
		return nodelist.LookupHost(ctx, func(_ context.Context, host string) ([]netip.Addr, error) {
			if a, ok := table[host]; ok {
				return a, nil
			}
			return nil, errors.New("no such host")
		}, host)
	}
}

func TestResolveHosts(t *testing.T) {
	lookup := fakeLookup(map[string][]netip.Addr{
		"ws-01.lan": {netip.MustParseAddr("2001:db8::1"), netip.MustParseAddr("192.0.2.1")}, // IPv4 first
		"ws-02.lan": {netip.MustParseAddr("2001:db8::2")},
		"twin.lan":  {netip.MustParseAddr("192.0.2.1")},
	})
	c, err := Parse(parts.Defaults(), "t.yaml", []byte("nodes: [{host: ws-01.lan}, {host: ws-02.lan}, {address: 192.0.2.3}]\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve(context.Background(), lookup)
	if err != nil {
		t.Fatal(err)
	}
	if r.Nodes[0].Address != netip.MustParseAddr("192.0.2.1") || r.Nodes[1].Address != netip.MustParseAddr("2001:db8::2") ||
		r.Nodes[2].Address != netip.MustParseAddr("192.0.2.3") || c.Nodes[0].Address.IsValid() {
		t.Errorf("resolved %v (the input must not change: %v)", r.Nodes, c.Nodes)
	}
	for yaml, want := range map[string]string{
		"nodes: [{host: ws-01.lan}, {host: gone.lan}]\n":                         "nodes[1].host: cannot resolve \"gone.lan\"",
		"nodes: [{host: ws-01.lan}, {host: twin.lan}]\n":                         "nodes[1]: 192.0.2.1:161 repeats nodes[0]",
		"nodes: [{host: 'bad_name'}, {host: ws-02.lan}]\n":                       "nodes[0].host: \"bad_name\" is not a host name",
		"nodes: [{host: ws-01.lan, address: 192.0.2.9}, {host: ws-02.lan}]\n":    "nodes[0].host: is given with address",
		"nodes: [{host: ws-01.lan}, {host: ws-02.lan}]\nresolve_interval: -1s\n": "resolve_interval: -1s is negative",
	} {
		c, err := Parse(parts.Defaults(), "t.yaml", []byte(yaml), nil, nil)
		if err == nil {
			_, err = c.Resolve(context.Background(), lookup)
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", yaml, err, want)
		}
	}
}

// TestStationNames: traps.nms given by name is resolved at start to its
// IPv4 address (nmsID carries it); a fall-back given by name stays a name,
// resolved at each notification.
func TestStationNames(t *testing.T) {
	lookup := fakeLookup(map[string][]netip.Addr{
		"nms.lan":  {netip.MustParseAddr("2001:db8::9"), netip.MustParseAddr("192.0.2.9")},
		"nms6.lan": {netip.MustParseAddr("2001:db8::10")},
	})
	c, err := Parse(parts.Defaults(), "t.yaml", []byte(minimal+"traps: {nms: 'nms.lan:1162', fallbacks: [backup.lan, '[2001:db8::11]']}\n"), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	r, err := c.Resolve(context.Background(), lookup)
	if err != nil {
		t.Fatal(err)
	}
	if r.Traps.NMS != (Station{Host: "nms.lan", Addr: netip.MustParseAddr("192.0.2.9"), Port: 1162}) {
		t.Errorf("nms %+v", r.Traps.NMS)
	}
	if got := []string{r.Traps.Fallbacks[0].String(), r.Traps.Fallbacks[1].String()}; got[0] != "backup.lan:162" || got[1] != "[2001:db8::11]:162" {
		t.Errorf("fall-backs %q", got)
	}
	c, err = Parse(parts.Defaults(), "t.yaml", []byte(minimal+"traps: {nms: nms6.lan}\n"), nil, nil)
	if err == nil {
		_, err = c.Resolve(context.Background(), lookup)
	}
	if err == nil || !strings.Contains(err.Error(), "traps.nms: \"nms6.lan\" resolves to 2001:db8::10, and nmsID (an IpAddress) needs an IPv4 address") {
		t.Errorf("an IPv6-only station name: %v", err)
	}
	if _, err := Parse(parts.Defaults(), "t.yaml", []byte(minimal+"traps: {fallbacks: ['bad_name:162']}\n"), nil, nil); err == nil ||
		!strings.Contains(err.Error(), "traps.fallbacks") {
		t.Errorf("a bad station name: %v", err)
	}
}
