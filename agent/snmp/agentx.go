package snmp

import (
	"errors"
	"slices"
	"sync"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/agentx"
	"github.com/diagagent/diagagent/agent/board"
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

// axSet is one AgentX set transaction between TestSet and CleanupSet: its
// scalars, or one change of a diagTree row (row), or one maintenance
// window (maint, with the end of the window it replaces).
type axSet struct {
	todo, undo []pendingSet
	row        *RowChange
	maint      *maintChange
	committed  bool
}

// maintChange is a maintenance window a set asks for: the node and the end.
type maintChange struct {
	node        uint32
	until, undo time.Time
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
	if len(vbs) > 0 && OID(vbs[0].Name).HasPrefix(h.r.treeEntry) {
		st, at := h.testTree(v, set, vbs)
		if st == gosnmp.NoError {
			h.sets[tid] = set
		}
		return agentx.Error(st), at
	}
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
	if set.row != nil || set.maint != nil {
		if err := h.commitTree(set); err != nil {
			h.r.log.WithError(err).Warn("agentx: SET of a diagTree row failed")
			return agentx.CommitFailed, 1
		}
		set.committed = true
		return agentx.NoError, 0
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
	if set.row != nil || set.maint != nil {
		if err := h.undoTree(set); err != nil {
			h.r.log.WithError(err).Warn("agentx: undoing a SET of a diagTree row failed")
			return agentx.UndoFailed, 1
		}
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

// testTree checks a set of diagTree columns, as a UDP request's row or
// window set is checked: one row created or destroyed (parseRow, then the
// daemon's OnRowCheck), or one node's maintenance window.
func (h *axHandler) testTree(v *view, set *axSet, vbs []agentx.VarBind) (gosnmp.SNMPError, int) {
	in := make([]varbind, len(vbs))
	for i, vb := range vbs {
		val, ok := fromAgentX(vb)
		if !ok {
			return gosnmp.WrongType, i + 1
		}
		in[i] = varbind{append(OID(nil), vb.Name...), val}
	}
	if p := (&pdu{vbs: in}); h.r.maintSet(p) {
		rest := in[0].name[len(h.r.treeEntry):]
		until, st := maintUntil(rest[0], in[0].val, v.now)
		if st != gosnmp.NoError {
			return st, 1
		}
		k := slices.IndexFunc(v.snap.Nodes, func(r board.Row) bool { return r.ID == rest[1] })
		if k < 0 {
			return gosnmp.NoCreation, 1
		}
		set.maint = &maintChange{node: rest[1], until: until}
		if w := v.snap.Nodes[k].Maint; w.Active(v.now) {
			set.maint.undo = w.Until
		}
		return gosnmp.NoError, 0
	}
	if h.r.cfg.OnRowChange == nil {
		return gosnmp.NotWritable, 1
	}
	ch, st, at := h.r.parseRow(in)
	if st == gosnmp.NoError && h.r.cfg.OnRowCheck != nil {
		if err := h.r.cfg.OnRowCheck(ch); err != nil {
			st, at = rowError(err), 1
		}
	}
	if st == gosnmp.NoError {
		set.row = &ch
	}
	return st, at
}

// commitTree makes the row change or window TestSet kept.
func (h *axHandler) commitTree(set *axSet) error {
	if m := set.maint; m != nil {
		return h.r.cfg.OnMaintenance(m.node, m.until)
	}
	return h.r.cfg.OnRowChange(*set.row)
}

// undoTree takes back a committed row change or window: a node added is
// removed, a window set gives way to the one it replaced. A node removed
// cannot come back under its id (ids are never given again): that undo
// fails, and the node can be added again.
func (h *axHandler) undoTree(set *axSet) error {
	if m := set.maint; m != nil {
		return h.r.cfg.OnMaintenance(m.node, m.undo)
	}
	if set.row.Destroy {
		return errors.New("a node removed cannot be put back under its id")
	}
	return h.r.cfg.OnRowChange(RowChange{ID: set.row.ID, Destroy: true})
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
