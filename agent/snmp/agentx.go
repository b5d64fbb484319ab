package snmp

import (
	"sync"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/agentx"
)

// AgentX returns the handler that serves this responder's objects under
// subtree (the DIAGNOSIS-MIB) to an AgentX master, so the host's snmpd
// answers for them on port 161 under its own users and views. Reads see the
// same snapshot a UDP request would; sets pass the same checks. The master
// has already applied its access control, so every set it forwards is one
// a write user may make. While fault injection silences the agent, reads
// get no answer either (the master times them out); sets still pass, so a
// manager can lift the silence as over UDP.
func (r *Responder) AgentX(subtree agentx.OID) agentx.Handler {
	return &axHandler{r: r, subtree: OID(subtree), sets: map[uint32]*axSet{}}
}

// axHandler is the responder seen from an AgentX session; the session
// calls it one request at a time, so one workspace serves them all.
type axHandler struct {
	r       *Responder
	subtree OID
	mu      sync.Mutex
	ws      workspace
	sets    map[uint32]*axSet
}

// axSet is one AgentX set transaction between TestSet and CleanupSet.
type axSet struct {
	todo, undo []pendingSet
	committed  bool
}

// view starts a request: a fresh workspace over the current snapshot.
func (h *axHandler) view() *view {
	h.ws.reset()
	h.ws.v = view{r: h.r, snap: h.r.board.Load(), now: h.r.now(), ws: &h.ws}
	return &h.ws.v
}

// Silenced reports whether fault injection silences the agent now.
func (h *axHandler) Silenced() bool { return h.r.fault.silenced(h.r.now()) }

func (h *axHandler) Get(name agentx.OID) agentx.VarBind {
	h.mu.Lock()
	defer h.mu.Unlock()
	o := OID(name)
	if !o.HasPrefix(h.subtree) {
		return agentx.VarBind{Type: agentx.NoSuchObject, Name: name}
	}
	val, lk := h.r.tree.get(h.view(), o)
	switch lk {
	case noObject:
		return agentx.VarBind{Type: agentx.NoSuchObject, Name: name}
	case noInstance:
		return agentx.VarBind{Type: agentx.NoSuchInstance, Name: name}
	}
	return toAgentX(name, val)
}

func (h *axHandler) Next(sr agentx.SearchRange) agentx.VarBind {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.view()
	end := agentx.VarBind{Type: agentx.EndOfMibView, Name: sr.Start}
	if sr.Include {
		if val, lk := h.r.tree.get(v, OID(sr.Start)); lk == found && OID(sr.Start).HasPrefix(h.subtree) {
			return toAgentX(sr.Start, val)
		}
	}
	n, val, ok := h.r.tree.next(v, OID(sr.Start))
	if !ok || !n.HasPrefix(h.subtree) || (len(sr.End) > 0 && n.Compare(OID(sr.End)) >= 0) {
		return end
	}
	return toAgentX(agentx.OID(append(OID(nil), n...)), val)
}

func (h *axHandler) TestSet(tid uint32, vbs []agentx.VarBind) (agentx.Error, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	v := h.view()
	set := &axSet{}
	for i, vb := range vbs {
		name := append(OID(nil), vb.Name...)
		val, ok := fromAgentX(vb)
		if !ok || !name.HasPrefix(h.subtree) {
			return agentx.NotWritable, i + 1
		}
		w, st := h.r.checkSet(v, varbind{name, val})
		if st != gosnmp.NoError {
			return agentx.Error(st), i + 1
		}
		old, _ := h.r.tree.get(v, name)
		set.todo = append(set.todo, pendingSet{w, val})
		set.undo = append(set.undo, pendingSet{w, old})
	}
	h.sets[tid] = set
	return agentx.NoError, 0
}

func (h *axHandler) CommitSet(tid uint32) (agentx.Error, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.sets[tid]
	if set == nil {
		return agentx.CommitFailed, 1
	}
	if i, err := h.r.commit(h.view(), set.todo); err != nil {
		h.r.log.WithError(err).WithField("index", i+1).Warn("agentx: SET commit failed")
		return agentx.CommitFailed, i + 1
	}
	set.committed = true
	return agentx.NoError, 0
}

// UndoSet writes the values TestSet read back: after a commit elsewhere
// failed, the station or the fault injection returns to what it was (a
// station written back is a new change, with the next counter).
func (h *axHandler) UndoSet(tid uint32) (agentx.Error, int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	set := h.sets[tid]
	if set == nil || !set.committed {
		return agentx.NoError, 0
	}
	if i, err := h.r.commit(h.view(), set.undo); err != nil {
		return agentx.UndoFailed, i + 1
	}
	return agentx.NoError, 0
}

func (h *axHandler) CleanupSet(tid uint32) {
	h.mu.Lock()
	defer h.mu.Unlock()
	delete(h.sets, tid)
}

// toAgentX converts a served value; the value types share their numbers
// with the BER tags.
func toAgentX(name agentx.OID, v value) agentx.VarBind {
	vb := agentx.VarBind{Type: agentx.VarType(v.typ), Name: name}
	switch v.typ {
	case gosnmp.Integer:
		vb.Num = uint64(uint32(int32(v.int())))
	case gosnmp.Counter32, gosnmp.Gauge32, gosnmp.TimeTicks, gosnmp.Counter64, gosnmp.IPAddress:
		vb.Num = v.num
	case gosnmp.OctetString, gosnmp.Opaque:
		vb.Bytes = append([]byte(nil), v.octetString()...)
	case gosnmp.ObjectIdentifier:
		vb.Value = agentx.OID(append(OID(nil), v.oid...))
	}
	return vb
}

// fromAgentX converts a value to set; false for a type no object takes.
func fromAgentX(vb agentx.VarBind) (value, bool) {
	switch vb.Type {
	case agentx.Integer:
		return value{typ: gosnmp.Integer, num: uint64(int64(int32(uint32(vb.Num))))}, true
	case agentx.IPAddress, agentx.Counter32, agentx.Gauge32, agentx.TimeTicks, agentx.Counter64:
		return value{typ: gosnmp.Asn1BER(vb.Type), num: vb.Num}, true
	case agentx.OctetString:
		return value{typ: gosnmp.OctetString, raw: vb.Bytes}, true
	case agentx.ObjectID:
		return value{typ: gosnmp.ObjectIdentifier, oid: OID(vb.Value)}, true
	}
	return value{}, false
}
