package config

import (
	"errors"
	"net/netip"
	"testing"

	"github.com/diagagent/diagagent/agent/parts"
)

// addrs parses a list of addresses.
func addrs(ss ...string) []netip.Addr {
	out := make([]netip.Addr, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParseAddr(s)
	}
	return out
}

// TestResolveID covers an explicit id, a specific listen address and local addresses.
func TestResolveID(t *testing.T) {
	nodes := "nodes: [{address: 192.0.2.1}, {address: 192.0.2.2}, {address: 192.0.2.3, tested_only: true}, {address: 127.0.0.1, port: 1161}, {address: 127.0.0.1, port: 1162}]\n"
	cases := []struct {
		name  string
		extra string
		local []netip.Addr
		want  int
		err   bool
	}{
		{name: "explicit id", extra: "id: 1\n", local: addrs("192.0.2.1"), want: 1},
		{name: "local address", local: addrs("10.9.9.9", "192.0.2.2"), want: 1},
		{name: "listen address first", extra: "snmp: {listen: '192.0.2.1:161'}\n", local: addrs("192.0.2.2"), want: 0},
		{name: "listen port picks among a shared address", extra: "snmp: {listen: '127.0.0.1:1162'}\n", want: 4},
		{name: "local address, listen port decides", extra: "snmp: {listen: '0.0.0.0:1161'}\n", local: addrs("127.0.0.1"), want: 3},
		{name: "tested-only never matches", local: addrs("192.0.2.3"), err: true},
		{name: "no local node", local: addrs("10.9.9.9"), err: true},
		{name: "several local nodes", local: addrs("192.0.2.1", "192.0.2.2"), err: true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, err := Parse(parts.Defaults(), "test.yaml", []byte(nodes+tc.extra), nil, nil)
			if err != nil {
				t.Fatal(err)
			}
			id, err := ResolveID(c, tc.local)
			if tc.err {
				if !errors.Is(err, ErrNoLocalNode) {
					t.Fatalf("ResolveID = %d, %v; want ErrNoLocalNode", id, err)
				}
				checkOneLine(t, err, "id", "set id")
				return
			}
			if err != nil || id != tc.want {
				t.Fatalf("ResolveID = %d, %v; want %d", id, err, tc.want)
			}
		})
	}
}

// TestListenAddresses checks what "auto" stands for in snmp.listen and web.listen.
func TestListenAddresses(t *testing.T) {
	file := "nodes: [{address: 127.0.0.1, port: 1161}, {address: 127.0.0.2, port: 1162}]\nsnmp: {listen: auto}\nweb: {listen: 'auto:8161'}\nstate_dir: /tmp/d/n{id}\n"
	c, err := Parse(parts.Defaults(), "test.yaml", []byte(file), nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	web, ok := c.WebListen(1)
	if got := c.SNMPListen(1); got != netip.MustParseAddrPort("127.0.0.2:1162") || !ok || web != netip.MustParseAddrPort("127.0.0.2:8161") {
		t.Errorf("SNMPListen %v, WebListen %v %v", got, web, ok)
	}
	if got := c.StateDirFor(1); got != "/tmp/d/n1" {
		t.Errorf("StateDirFor(1) = %q", got)
	}
	c.SNMP.Listen, c.Web.Listen = "0.0.0.0:161", ""
	if got := c.SNMPListen(1); got != netip.MustParseAddrPort("0.0.0.0:161") {
		t.Errorf("SNMPListen = %v", got)
	}
	if _, ok := c.WebListen(1); ok {
		t.Error("WebListen: page served with an empty web.listen")
	}
}

// TestLocalAddrs checks that the host's addresses include the loopback address.
func TestLocalAddrs(t *testing.T) {
	local, err := LocalAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range local {
		if a == netip.MustParseAddr("127.0.0.1") {
			return
		}
	}
	t.Errorf("LocalAddrs() = %v, without 127.0.0.1", local)
}
