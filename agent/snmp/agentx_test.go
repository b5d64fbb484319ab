package snmp

import (
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/diagagent/diagagent/agent/agentx"
	"github.com/diagagent/diagagent/mib"
)

// TestAgentXSetPhases drives the handler's four set phases as a master
// would: TestSet checks without writing, CommitSet writes, UndoSet writes
// back what was there, CleanupSet forgets; a bad value or a read-only
// object is refused at TestSet with its index, and a failing commit says
// commitFailed.
func TestAgentXSetPhases(t *testing.T) {
	clock := &fakeClock{t: time.Date(2026, 11, 21, 6, 0, 0, 0, time.UTC)}
	cfg := testConfig(clock)
	var set []netip.Addr
	var refuse bool
	cfg.OnSetNMS = func(a netip.Addr) error {
		if refuse {
			return errors.New("the daemon refuses")
		}
		set = append(set, a)
		return nil
	}
	r, err := NewResponder(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Publish(testSnapshot()); err != nil { // nmsID 127.0.0.9
		t.Fatal(err)
	}
	root := agentx.OID(mustOID(mib.DiagnosisMIB))
	h := r.AgentX(root)
	nms := agentx.OID(mustOID(mib.NMSID0))
	vb := func(a string) agentx.VarBind {
		return agentx.VarBind{Type: agentx.IPAddress, Name: nms, Num: ipAddr(netip.MustParseAddr(a)).num}
	}

	if e, i := h.TestSet(1, []agentx.VarBind{vb("192.0.2.9")}); e != agentx.NoError || i != 0 || len(set) != 0 {
		t.Fatalf("TestSet: %d at %d, %d writes; want no error and nothing written", e, i, len(set))
	}
	if e, _ := h.CommitSet(1); e != agentx.NoError || len(set) != 1 || set[0] != netip.MustParseAddr("192.0.2.9") {
		t.Fatalf("CommitSet: %d, writes %v", e, set)
	}
	if e, _ := h.UndoSet(1); e != agentx.NoError || len(set) != 2 || set[1] != netip.MustParseAddr("127.0.0.9") {
		t.Fatalf("UndoSet: %d, writes %v; want the old station written back", e, set)
	}
	h.CleanupSet(1)

	up := agentx.OID(mustOID(mib.HiADSDisUP0))
	if e, i := h.TestSet(2, []agentx.VarBind{vb("192.0.2.9"), {Type: agentx.OctetString, Name: up, Bytes: []byte("1")}}); e != agentx.NotWritable || i != 2 {
		t.Errorf("TestSet of hiADSDisUP: %d at %d, want notWritable at 2", e, i)
	}
	if e, i := h.TestSet(3, []agentx.VarBind{vb("224.0.0.1")}); e != agentx.WrongValue || i != 1 {
		t.Errorf("TestSet of a multicast station: %d at %d, want wrongValue at 1", e, i)
	}
	refuse = true
	if e, _ := h.TestSet(4, []agentx.VarBind{vb("192.0.2.10")}); e != agentx.NoError {
		t.Fatalf("TestSet: %d", e)
	}
	if e, i := h.CommitSet(4); e != agentx.CommitFailed || i != 1 {
		t.Errorf("a refused commit: %d at %d, want commitFailed at 1", e, i)
	}
	if e, _ := h.CommitSet(99); e != agentx.CommitFailed {
		t.Errorf("CommitSet of an unknown transaction: %d, want commitFailed", e)
	}
}
