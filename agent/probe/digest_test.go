package probe

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// TestProbeReadsDigest: a test GETs hiADSDisUP.0 and diagViewDigest.0 in one
// request; the digest is taken when it is 8 octets, and a peer that serves
// none (an older agent: noSuchObject) or a malformed one is fault-free with
// no digest, so its rows are read every time, as before.
func TestProbeReadsDigest(t *testing.T) {
	up := gosnmp.SnmpPDU{Name: mib.HiADSDisUP0, Type: gosnmp.OctetString, Value: []byte("1")}
	digest := func(typ gosnmp.Asn1BER, v any) gosnmp.SnmpPDU {
		return gosnmp.SnmpPDU{Name: mib.DiagViewDigest0, Type: typ, Value: v}
	}
	cases := []struct {
		name     string
		vbs      []gosnmp.SnmpPDU
		status   hiadsd.Status
		digest   uint64
		err      error
		withheld bool
	}{
		{"digest", []gosnmp.SnmpPDU{up, digest(gosnmp.OctetString, []byte{1, 2, 3, 4, 5, 6, 7, 8})}, hiadsd.FaultFree, 0x0102030405060708, nil, false},
		{"view withheld", []gosnmp.SnmpPDU{up, digest(gosnmp.OctetString, []byte{})}, hiadsd.FaultFree, 0, nil, true},
		{"older agent", []gosnmp.SnmpPDU{up, digest(gosnmp.NoSuchObject, nil)}, hiadsd.FaultFree, 0, nil, false},
		{"short digest", []gosnmp.SnmpPDU{up, digest(gosnmp.OctetString, []byte{1, 2, 3})}, hiadsd.FaultFree, 0, nil, false},
		{"digest as a gauge", []gosnmp.SnmpPDU{up, digest(gosnmp.Gauge32, uint32(7))}, hiadsd.FaultFree, 0, nil, false},
		{"one varbind of two", []gosnmp.SnmpPDU{up}, hiadsd.Faulty, 0, ErrMalformedReply, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var mu sync.Mutex // the fake peer answers each request on its own goroutine
			var asked []string
			f := startFakePeer(t, func(req *gosnmp.SnmpPacket) []gosnmp.SnmpPDU {
				mu.Lock()
				defer mu.Unlock()
				for _, vb := range req.Variables {
					asked = append(asked, vb.Name)
				}
				return c.vbs
			})
			p := newTestProber(t, func(c *Config) { c.PingTimeout, c.PingCount = 100*time.Millisecond, 1 })
			res := p.Probe(probeContext(t), f.target())
			if res.Digest != c.digest || res.Withheld != c.withheld || !errors.Is(res.SNMPErr, c.err) || (c.err == nil && res.Status != c.status) {
				t.Fatalf("got %+v, want status %v, digest %x, withheld %v, error %v", res, c.status, c.digest, c.withheld, c.err)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(asked) < 2 || !sameOID(asked[0], mib.HiADSDisUP0) || !sameOID(asked[1], mib.DiagViewDigest0) {
				t.Fatalf("the test asked for %v; want hiADSDisUP.0 and diagViewDigest.0", asked)
			}
		})
	}
}

// TestTestExchangeSize measures, with gosnmp's encoder, the octets one test
// of an agent puts on the wire (SNMPv2c, community public, IPv4 and UDP
// headers included): the figure docs/push.md's arithmetic and docs/versus.md
// use. Run with -v to print it.
func TestTestExchangeSize(t *testing.T) {
	vbs := []gosnmp.SnmpPDU{{Name: mib.HiADSDisUP0, Type: gosnmp.Null}, {Name: mib.DiagViewDigest0, Type: gosnmp.Null}}
	req := &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: "public", PDUType: gosnmp.GetRequest, RequestID: 123456789, Variables: vbs}
	resp := *req
	resp.PDUType = gosnmp.GetResponse
	resp.Variables = []gosnmp.SnmpPDU{{Name: mib.HiADSDisUP0, Type: gosnmp.OctetString, Value: []byte("1")},
		{Name: mib.DiagViewDigest0, Type: gosnmp.OctetString, Value: make([]byte, 8)}}
	const ipUDP = 20 + 8
	size := func(p *gosnmp.SnmpPacket) int {
		b, err := p.MarshalMsg()
		if err != nil {
			t.Fatal(err)
		}
		return len(b) + ipUDP
	}
	q, r := size(req), size(&resp)
	t.Logf("a test exchange: request %d + response %d = %d octets", q, r, q+r)
	if q != 89 || r != 98 {
		t.Fatalf("request %d, response %d octets; docs/push.md and docs/versus.md say 89 and 98 (187): re-measure them", q, r)
	}
}
