package daemon

import (
	"time"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
)

// The notification policy (agent/notify) reads the agent through these two.

// policyView is the daemon as the policy's View: the loop's view and list.
type policyView struct{ d *Daemon }

func (v policyView) Self() int                     { return v.d.id }
func (v policyView) Size() int                     { return len(v.d.view) }
func (v policyView) Status(id int) hiadsd.Status   { return v.d.view[id].Status }
func (v policyView) Member(id int) nodelist.Member { return v.d.list.Members[id] }
func (v policyView) InMaintenance(id int) bool     { return v.d.inMaintenance(id) }
func (v policyView) Mute(id int) string            { return v.d.mute(id) }
func (v policyView) Withholds() bool               { return v.d.node.Withholds() }
func (v policyView) Isolated() bool                { return v.d.isolated > 0 }

// policyHost is the daemon as the policy's Host.
type policyHost struct{ d *Daemon }

func (h policyHost) Now() time.Time            { return h.d.now() }
func (h policyHost) Snapshot() *board.Snapshot { return h.d.Snapshot() }

func (h policyHost) SavedSeq() uint32 {
	h.d.mu.Lock()
	defer h.d.mu.Unlock()
	return h.d.savedSeq
}

// RepublishCauses serves the current snapshot again with the groups out
// now. The policy calls it with none of its locks held.
func (h policyHost) RepublishCauses() {
	h.d.republish(func(s *board.Snapshot) { s.Causes = h.d.pol.CauseGroups() })
}

// republish serves the snapshot last published again, as edit changes
// it; none before the first.
func (d *Daemon) republish(edit func(s *board.Snapshot)) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.cur == nil {
		return
	}
	s := *d.cur
	edit(&s)
	if err := d.board.Publish(&s); err != nil {
		d.log.WithError(err).Error("cannot publish the view")
		return
	}
	d.cur = &s
}

// endGrace ends the start-up grace once it has passed: the policy notifies
// the verdicts it held, and the list conflicts found within it that still
// hold are notified now.
func (d *Daemon) endGrace() {
	if !d.pol.EndGrace() {
		return
	}
	for _, peer := range d.lists.heldStill() {
		d.notifyMismatch(peer)
	}
}
