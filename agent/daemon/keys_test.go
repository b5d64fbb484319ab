package daemon

import (
	"errors"
	"slices"
	"testing"

	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/agent/membership"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// TestKeysAcrossRestarts: a first start runs the keyring file's keys; a
// restart keeps the keys rotated since (the state's, kept in state_dir)
// while the file is the one last read, and applies an edited file as
// changes made at the first interval; a state naming a key the agent does not hold is refused
// with how to fix it.
func TestKeysAcrossRestarts(t *testing.T) {
	oldKey, _ := keyring.Generate()
	newKey, _ := keyring.Generate()
	other, _ := keyring.Generate()
	c := testConfig(t, 3, hiadsd.VCube, notify.Detected)
	c.Keys = []keyring.Key{oldKey}
	d := newTestDaemon(t, c, &fakeLAN{}, &sink{}, state.State{}, nil)
	if r, ok := d.Ring(); !ok || !slices.Equal(r.Keys, []keyring.Key{oldKey}) {
		t.Fatalf("first start runs %v, want the file's key", r.Keys)
	}
	rotateKeys(t, d, oldKey, newKey)
	if err := d.members.ChangeKeys(mib.KeyRemove, newKey); !errors.Is(err, membership.ErrKeyChange) {
		t.Errorf("removing the key in use: %v, want membership.ErrKeyChange", err)
	}
	// The version counts the changes: install 1, use 2 (the key in use is
	// installed again with it), remove 1.
	if r, _ := d.Ring(); !slices.Equal(r.Keys, []keyring.Key{newKey}) || d.list.Version != 4 {
		t.Fatalf("after install, use and remove: keys %v at version %d, want the new key alone at 4", r.Keys, d.list.Version)
	}
	st := d.state()

	again := newTestDaemon(t, c, &fakeLAN{}, &sink{}, st, nil) // the file still holds the old key
	if r, _ := again.Ring(); !slices.Equal(r.Keys, []keyring.Key{newKey}) || again.members.Pending() != nil {
		t.Fatalf("a restart with the file last read runs %v (change queued: %v), want the rotated key", r.Keys, again.members.Pending() != nil)
	}

	c.Keys = []keyring.Key{other, newKey} // the operator edits the file
	edited := newTestDaemon(t, c, &fakeLAN{}, &sink{}, st, nil)
	if edited.members.Pending() == nil || !slices.Equal(edited.members.Pending().Keys, []uint32{other.Index(), newKey.Index()}) || edited.members.Pending().Version != 6 {
		t.Fatalf("a restart with an edited file queues %+v, want its keys at version 6 (installed, installed with the use; the key in use replaced)", edited.members.Pending())
	}

	c.StateDir = t.TempDir() // the keys kept are lost, the file holds another key
	c.Keys = []keyring.Key{other}
	if _, err := New(Options{Config: c, Prober: &fakeLAN{}, Board: (&sink{}).board(), State: st}); err == nil {
		t.Error("a state naming keys this agent does not hold was accepted")
	}
}

// TestReloadKeepsAKeyRemoved: a key rotated with diagagent keyring (the
// new one installed and used, the old one removed) stays removed when the
// keyring file, edited to send with the new key but still naming the old
// one, is reloaded: the file is one more operator, and it did not ask for
// the old key again.
func TestReloadKeepsAKeyRemoved(t *testing.T) {
	oldKey, _ := keyring.Generate()
	newKey, _ := keyring.Generate()
	c := testConfig(t, 3, hiadsd.VCube, notify.Detected)
	c.Keys = []keyring.Key{oldKey}
	d := newTestDaemon(t, c, &fakeLAN{}, &sink{}, state.State{}, nil)
	rotateKeys(t, d, oldKey, newKey)
	if _, changed, err := d.members.Reload(c.Nodes, []keyring.Key{newKey, oldKey}); err != nil || changed {
		t.Fatalf("a reload of the file naming the new key first and the old one: changed %v, %v", changed, err)
	}
	d.applyPending()
	if r, _ := d.Ring(); !slices.Equal(r.Keys, []keyring.Key{newKey}) {
		t.Fatalf("after the reload the agent runs %v, want the new key alone", r.Keys)
	}
	if _, changed, err := d.members.Reload(c.Nodes, []keyring.Key{newKey}); err != nil || changed {
		t.Fatalf("the old key dropped from the file too: changed %v, %v", changed, err)
	}
}

// rotateKeys rotates d from oldKey to newKey by SNMP, as diagagent keyring
// does: install, use, remove the old one, each run at once.
func rotateKeys(t *testing.T, d *Daemon, oldKey, newKey keyring.Key) {
	t.Helper()
	for _, ch := range []struct {
		verb int
		key  keyring.Key
	}{{mib.KeyInstall, newKey}, {mib.KeyUse, newKey}, {mib.KeyRemove, oldKey}} {
		if err := d.members.ChangeKeys(ch.verb, ch.key); err != nil {
			t.Fatalf("ChangeKeys(%d, %s): %v", ch.verb, ch.key.ID(), err)
		}
		d.applyPending()
	}
}
