package snmp

import (
	"github.com/gosnmp/gosnmp"
)

// pendingSet is one checked varbind of a SetRequest waiting for commit.
type pendingSet struct {
	w   *writer
	val value
}

// opSet answers a SetRequest in two phases (RFC 3416 4.2.5): every varbind is
// checked before any is written, the first failure is reported with its
// 1-based index, and nothing is written unless all pass.
func (r *Responder) opSet(v *view, req *request) outcome {
	p := req.p
	out := outcome{}
	if !req.write {
		if req.v3 == nil {
			r.stats.inc(cInBadCommunityUses) // RFC 3418: an operation the community may not do
		}
		out.fail(p, gosnmp.NoAccess, 1)
		return out
	}
	todo := make([]pendingSet, 0, len(p.vbs))
	for i, vb := range p.vbs {
		if !r.mayWrite(req, vb) {
			out.fail(p, gosnmp.NoAccess, i+1)
			return out
		}
		w, status := r.checkSet(v, vb)
		if status != gosnmp.NoError {
			out.fail(p, status, i+1)
			return out
		}
		todo = append(todo, pendingSet{w, vb.val})
	}
	if i, err := r.commit(v, todo); err != nil {
		r.log.WithError(err).WithField("index", i+1).Warn("snmp: SET commit failed")
		out.fail(p, gosnmp.CommitFailed, i+1)
		return out
	}
	out.vars = p.vbs
	return out
}

// mayWrite reports whether req may write vb's object: an object only agents
// write (diagPush) takes, when the responder serves cluster users, SETs from
// them alone (agentsMay).
func (r *Responder) mayWrite(req *request, vb varbind) bool {
	i := r.tree.find(vb.name)
	if i < 0 {
		return true
	}
	if s, ok := r.tree.nodes[i].(*scalar); !ok || s.write == nil || !s.write.agents {
		return true
	}
	return r.agentsMay(req)
}

// agentsMay reports whether req may write what only agents write (a push,
// a change of the node list) when the responder serves cluster users: only
// as one of them. Anyone else is refused, counted, logged and notified as
// an authentication failure: with the cluster key in use, such a SET sent
// with a community or another user is forged or misdirected.
func (r *Responder) agentsMay(req *request) bool {
	if !r.clusterUsers || req.user != nil && req.user.Cluster {
		return true
	}
	r.stats.inc(cAgentsOnly)
	r.log.WithField("src", req.src).Warn("snmp: a SET only agents make (a push or a node list change), without the cluster key: refused")
	r.authFailure(req.src)
	return false
}

// checkSet runs the checks of RFC 3416 4.2.5 steps 2 to 7 on one varbind.
func (r *Responder) checkSet(v *view, vb varbind) (*writer, gosnmp.SNMPError) {
	i := r.tree.find(vb.name)
	if i < 0 || !vb.name.HasPrefix(r.tree.nodes[i].base()) {
		return nil, gosnmp.NotWritable
	}
	s, ok := r.tree.nodes[i].(*scalar)
	switch {
	case !ok || s.write == nil:
		return nil, gosnmp.NotWritable
	case vb.val.typ != s.write.typ:
		return nil, gosnmp.WrongType
	}
	if st := s.write.check(v, vb.val); st != gosnmp.NoError {
		return nil, st
	}
	if vb.name.Compare(s.inst) != 0 {
		return nil, gosnmp.NoCreation
	}
	return s.write, gosnmp.NoError
}

// commit applies checked varbinds; the fallible ones (the daemon's callback)
// go first, so a failure leaves nothing written. It returns the failing index.
func (r *Responder) commit(v *view, todo []pendingSet) (int, error) {
	for i, t := range todo {
		if t.w.mayFail {
			if err := t.w.commit(v, t.val); err != nil {
				return i, err
			}
		}
	}
	for _, t := range todo {
		if !t.w.mayFail {
			_ = t.w.commit(v, t.val)
		}
	}
	return 0, nil
}

// v1Status maps an SNMPv2 error status to SNMPv1 (RFC 3584 section 4.4).
func v1Status(s gosnmp.SNMPError) gosnmp.SNMPError {
	switch s {
	case gosnmp.NoError, gosnmp.TooBig, gosnmp.NoSuchName, gosnmp.BadValue, gosnmp.ReadOnly, gosnmp.GenErr:
		return s
	case gosnmp.WrongValue, gosnmp.WrongEncoding, gosnmp.WrongType, gosnmp.WrongLength, gosnmp.InconsistentValue:
		return gosnmp.BadValue
	case gosnmp.NoAccess, gosnmp.NotWritable, gosnmp.NoCreation, gosnmp.InconsistentName, gosnmp.AuthorizationError:
		return gosnmp.NoSuchName
	}
	return gosnmp.GenErr
}
