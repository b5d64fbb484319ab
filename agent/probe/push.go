package probe

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// ErrNoWriteAccess is Push's error when the prober has no credentials to
// write with: no v3 user and no write community.
var ErrNoWriteAccess = errors.New("probe: no write community or v3 user to push with")

// CanPush reports whether the prober has credentials to write pushes with.
func (p *Prober) CanPush() bool { return p.cfg.V3 != nil || p.cfg.WriteCommunity != "" }

// Push writes value (a board.MarshalPush) to diagPush.0 of the agent at t,
// with the write community or the v3 user tests use, in the pushes' slots
// (pushSlots), waiting for each reply
// as a test of t would (its round-trip timeout), so that a push to a peer
// that has just failed gives up soon and the sender can try another; it
// fails unless the peer took it.
func (p *Prober) Push(ctx context.Context, t Target, value []byte) error {
	return p.send(ctx, t, mib.DiagPush0, value, "push to")
}

// send writes value to the agent's octet-string object oid as Push does;
// its error names what was sent (what, then the peer's address).
func (p *Prober) send(ctx context.Context, t Target, oid string, value []byte, what string) error {
	err := p.set(ctx, p.sends, t, p.book.estimate(t).timeout(p.cfg.TimeoutMin, p.cfg.Timeout),
		gosnmp.SnmpPDU{Name: oid, Type: gosnmp.OctetString, Value: value})
	if err != nil {
		return fmt.Errorf("%s %s: %w", what, t.Addr, err)
	}
	return nil
}

// Set writes the objects of one SetRequest to the agent at t, as Push
// does, waiting the ceiling of the round-trip timeout: the operator's
// commands (diagagent keyring, maintenance, nodes). An agent's refusal is
// a *SetError.
func (p *Prober) Set(ctx context.Context, t Target, vbs ...gosnmp.SnmpPDU) error {
	return p.set(ctx, p.slots, t, p.cfg.Timeout, vbs...)
}

// SetError is an agent's refusal of a SetRequest: its error-status and the
// 1-based index of the varbind at fault. It is an ErrUnexpectedValue.
type SetError struct {
	Status gosnmp.SNMPError
	Index  int
}

func (e *SetError) Error() string {
	return fmt.Sprintf("%v: error-status %v at varbind %d", ErrUnexpectedValue, e.Status, e.Index)
}

func (e *SetError) Unwrap() error { return ErrUnexpectedValue }

// Busy reports whether the agent took the object but could not commit the
// value now (commitFailed): a peer too busy for another agent's question
// (daemon.ErrVantageBusy), where an agent that serves no such object
// refuses it outright (notWritable, noSuchName).
func (e *SetError) Busy() bool { return e.Status == gosnmp.CommitFailed }

// Get reads objects of the agent at t in one GetRequest, as the operator's
// commands ask.
func (p *Prober) Get(ctx context.Context, t Target, oids ...string) ([]gosnmp.SnmpPDU, error) {
	if err := acquire(ctx, p.slots); err != nil {
		return nil, err
	}
	defer release(p.slots)
	var pkt *gosnmp.SnmpPacket
	g, err := p.open(ctx, t, func(g *gosnmp.GoSNMP) (err error) {
		pkt, err = g.Get(oids)
		return err
	})
	if err != nil {
		return nil, err
	}
	defer p.close(g, t)
	if pkt.Error != gosnmp.NoError || len(pkt.Variables) != len(oids) {
		return nil, fmt.Errorf("%w: error-status %v, %d of %d objects", ErrUnexpectedValue, pkt.Error, len(pkt.Variables), len(oids))
	}
	return pkt.Variables, nil
}

// set writes vb to the agent at t with the write community or the v3
// user, in one of slots (p.slots or p.sends), waiting wait for each reply;
// it fails unless the agent took it.
func (p *Prober) set(ctx context.Context, slots chan struct{}, t Target, wait time.Duration, vbs ...gosnmp.SnmpPDU) error {
	if !p.CanPush() {
		return ErrNoWriteAccess
	}
	if err := acquire(ctx, slots); err != nil {
		return err
	}
	defer release(slots)
	return p.write(ctx, t, wait, p.cfg.Retries, vbs...)
}

// write is set outside the slots, with retries resends.
func (p *Prober) write(ctx context.Context, t Target, wait time.Duration, retries int, vbs ...gosnmp.SnmpPDU) error {
	if !p.CanPush() {
		return ErrNoWriteAccess
	}
	t.Community = "" // agents only, never a device's own community
	if p.cfg.V3 == nil {
		t.Community = p.cfg.WriteCommunity
	}
	var pkt *gosnmp.SnmpPacket
	g, err := p.open(ctx, t, func(g *gosnmp.GoSNMP) (err error) {
		g.Timeout, g.Retries = wait, retries
		pkt, err = g.Set(vbs)
		return err
	})
	if err != nil {
		return err
	}
	defer p.close(g, t)
	if pkt.Error != gosnmp.NoError {
		return &SetError{Status: pkt.Error, Index: int(pkt.ErrorIndex)}
	}
	return nil
}

// Hello writes self (a NodeID) to diagHello.0 of the agent at t: this
// agent has just started, or its link has come back, and asks t to test
// it now. It waits as a push does, in the pushes' slots.
func (p *Prober) Hello(ctx context.Context, t Target, self uint32) error {
	err := p.set(ctx, p.sends, t, p.book.estimate(t).timeout(p.cfg.TimeoutMin, p.cfg.Timeout), helloPDU(self))
	if err != nil {
		return fmt.Errorf("hello to %s: %w", t.Addr, err)
	}
	return nil
}

// Knock is Hello sent once, awaited for test.timeout_min, outside the
// prober's slots: an agent none of whose tests is answered (its link may
// be down) knocks on its testers every few tenths of a second, and a
// knock must not hold a slot its own tests need to find the link back.
func (p *Prober) Knock(ctx context.Context, t Target, self uint32) error {
	err := p.write(ctx, t, p.cfg.TimeoutMin, 0, helloPDU(self))
	if err != nil {
		return fmt.Errorf("knock on %s: %w", t.Addr, err)
	}
	return nil
}

// helloPDU is the write of a hello from agent self.
func helloPDU(self uint32) gosnmp.SnmpPDU {
	return gosnmp.SnmpPDU{Name: mib.DiagHello0, Type: gosnmp.Gauge32, Value: uint(self)}
}
