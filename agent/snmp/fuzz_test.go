package snmp

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/netip"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

var capture = flag.Bool("capture", false, "regenerate testdata/fuzz/FuzzHandle from net-snmp tools (TestFuzzCorpus)")

// FuzzHandle feeds raw datagrams to the request path: it must never panic,
// and whatever it answers to SNMPv1/v2c must be a message gosnmp can decode.
func FuzzHandle(f *testing.F) {
	clock := &fakeClock{t: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)}
	cfg := testConfig(clock)
	cfg.OnSetNMS = func(netip.Addr) error { return nil }
	cfg.OnRowChange = func(RowChange) error { return nil }
	cfg.FaultInjection = false // a fuzzed SET must not silence the rest of the run
	r, err := NewResponder(cfg)
	if err != nil {
		f.Fatal(err)
	}
	rowSet := &gosnmp.SnmpPacket{Version: gosnmp.Version2c, Community: rwCommunity, PDUType: gosnmp.SetRequest, RequestID: 7,
		Variables: []gosnmp.SnmpPDU{
			{Name: mib.TreeCell(mib.ColNodeAddrType, 4), Type: gosnmp.Integer, Value: 1},
			{Name: mib.TreeCell(mib.ColNodeAddr, 4), Type: gosnmp.OctetString, Value: []byte{10, 0, 0, 9}},
			{Name: mib.TreeCell(mib.ColNodePort, 4), Type: gosnmp.Gauge32, Value: uint(161)},
			{Name: mib.TreeCell(mib.ColNodeRowStatus, 4), Type: gosnmp.Integer, Value: 4},
		}}
	if b, err := rowSet.MarshalMsg(); err == nil { // a row change, for the fuzzer to start from
		f.Add(b)
	} else {
		f.Fatal(err)
	}
	if err := r.Publish(testSnapshot()); err != nil {
		f.Fatal(err)
	}
	src := netip.MustParseAddr("127.0.0.1")
	ws := &workspace{} // shared across inputs, as a worker's is across requests
	f.Fuzz(func(t *testing.T, b []byte) {
		reply := r.handleWith(ws, bytes.Clone(b), src)
		if v, _, err := messageVersion(b); reply == nil || err != nil || v == 3 {
			return
		}
		if _, err := decode(reply, nil); err != nil && !echoesBadIPAddress(reply) {
			t.Fatalf("reply to %x does not decode: %v", b, err)
		}
	})
}

// echoesBadIPAddress reports whether reply is a well-formed response (by the
// responder's own strict decoder) that carries an IpAddress of another length
// than 4: an error reply echoing the request's varbinds as RFC 3416 4.2.5
// wants, which gosnmp refuses to decode.
func echoesBadIPAddress(reply []byte) bool {
	p, err := decodeCommunity(&workspace{}, reply)
	if err != nil || p.typ != gosnmp.GetResponse {
		return false
	}
	for _, vb := range p.vbs {
		if vb.val.bad {
			return true
		}
	}
	return false
}

// TestFuzzCorpus checks that every seed of FuzzHandle still reaches the agent
// and gets an answer (they would silently rot if the test keys changed); with
// -capture it first records them anew from net-snmp's tools.
func TestFuzzCorpus(t *testing.T) {
	if *capture {
		captureCorpus(t)
	}
	clock := &fakeClock{t: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)}
	cfg := testConfig(clock)
	cfg.OnSetNMS = func(netip.Addr) error { return nil }
	r, err := NewResponder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	names, err := filepath.Glob(filepath.Join("testdata", "fuzz", "FuzzHandle", "*"))
	if err != nil || len(names) < 10 {
		t.Fatalf("seed corpus missing (%v); regenerate with go test ./agent -run TestFuzzCorpus -capture", err)
	}
	for _, path := range names {
		name := filepath.Base(path)
		reply := r.handle(readSeed(t, name), netip.MustParseAddr("127.0.0.1"))
		if silentSeed := name == "v2c_badcommunity_0"; (reply == nil) != silentSeed {
			t.Errorf("seed %s: reply %x", name, reply)
		}
	}
	if s := r.Stats(); s.WrongDigests+s.NotInTimeWindows+s.DecryptionErrors != 0 || s.InASNParseErrs != 0 {
		t.Errorf("seeds failed USM or parse checks: %+v", s)
	}
}

// captureCorpus records the datagrams net-snmp's tools send, as the seed
// corpus of FuzzHandle.
func captureCorpus(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.OnSetNMS = func(netip.Addr) error { return nil } })
	rl := startRelay(t, h.addr)
	p := &harness{r: h.r, addr: rl.addr, clock: h.clock}
	sets := map[string][]string{
		"v1_get":            p.v1(roCommunity, mib.SysName0, mib.TreeCell(mib.ColNodeStatus, 2)),
		"v1_getnext":        append(p.v1(roCommunity), mib.DiagTree),
		"v2c_getnext":       append(p.v2(roCommunity), mib.DiagTree, ".1.3.6.1.2.1.1"),
		"v2c_getbulk":       p.v2(roCommunity, "-Cn1", "-Cr10", mib.SysUpTime0, mib.DiagTree),
		"v2c_set":           p.v2(rwCommunity, mib.NMSID0, "a", "127.0.0.5", mib.DiagFaultInject0, "i", "0"),
		"v2c_badcommunity":  silent(p.v2("wrong", mib.SysName0)),
		"v3_noauth":         p.v3(usmArgs("noauth", "noAuthNoPriv", "", ""), mib.SysName0),
		"v3_authsha":        p.v3(usmArgs("authsha", "authNoPriv", "SHA", ""), mib.HiADSDisUP0),
		"v3_privsha_aes":    p.v3(usmArgs("privsha", "authPriv", "SHA", "AES"), mib.NMSID0),
		"v3_privsha256_set": p.v3(usmArgs("privsha256", "authPriv", "SHA-256", "AES"), mib.NMSID0, "a", "127.0.0.6"),
		"v3_privsha512":     p.v3(usmArgs("privsha512", "authPriv", "SHA-512", "AES-256"), mib.SysName0),
		"v3_unknownuser":    p.v3(usmArgs("nobody", "authNoPriv", "SHA", ""), mib.SysName0),
	}
	tools := map[string]string{"v2c_getbulk": "snmpbulkget", "v2c_set": "snmpset", "v3_privsha256_set": "snmpset",
		"v1_getnext": "snmpgetnext", "v2c_getnext": "snmpgetnext"}
	dir := filepath.Join("testdata", "fuzz", "FuzzHandle")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, args := range sets {
		tool := tools[name]
		if tool == "" {
			tool = "snmpget"
		}
		_, _ = p.run(t, tool, args...) // failures (bad community, unknown user) are seeds too
		for i, d := range rl.take() {
			body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", d)
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%s_%d", name, i)), []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// relay forwards datagrams to an agent and records what the manager sent.
type relay struct {
	addr string
	mu   sync.Mutex
	got  [][]byte
}

func (rl *relay) take() [][]byte {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	g := rl.got
	rl.got = nil
	return g
}

func startRelay(t *testing.T, agent string) *relay {
	t.Helper()
	front, err := net.ListenPacket("udp4", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	back, err := net.Dial("udp4", agent)
	if err != nil {
		t.Fatal(err)
	}
	rl := &relay{addr: front.LocalAddr().String()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf, rep := make([]byte, 65536), make([]byte, 65536)
		for {
			n, from, err := front.ReadFrom(buf)
			if err != nil {
				return
			}
			rl.mu.Lock()
			rl.got = append(rl.got, bytes.Clone(buf[:n]))
			rl.mu.Unlock()
			_, _ = back.Write(buf[:n])
			_ = back.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			if m, err := back.Read(rep); err == nil {
				_, _ = front.WriteTo(rep[:m], from)
			} else if !errors.Is(err, os.ErrDeadlineExceeded) {
				return
			}
		}
	}()
	t.Cleanup(func() { front.Close(); back.Close(); <-done })
	return rl
}

// readSeed reads one corpus file back into bytes.
func readSeed(t testing.TB, name string) []byte {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("testdata", "fuzz", "FuzzHandle", name))
	if err != nil {
		t.Fatal(err)
	}
	var s string
	if _, err := fmt.Sscanf(string(bytes.TrimPrefix(raw, []byte("go test fuzz v1\n"))), "[]byte(%q)", &s); err != nil {
		t.Fatalf("seed %s: %v", name, err)
	}
	return []byte(s)
}
