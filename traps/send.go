package traps

import (
	"errors"
	"fmt"
	"net/netip"
	"time"

	"github.com/gosnmp/gosnmp"
)

// errAborted means the drain deadline interrupted an attempt.
var errAborted = errors.New("notifier aborted")

// deliver sends one notification, retrying informs until acknowledged, out of
// attempts at every station, pushed out of the queue, or aborted. Each
// failed inform counts against its station; a station that does not answer
// is marked down and the inform moves on to the next fall-back (see health).
func (n *Notifier) deliver(e *entry) {
	tried := map[target]int{} // attempts of this notification by station
	for attempt := 0; ; attempt++ {
		if isGone(e) {
			return
		}
		if n.isAborted() {
			n.drop(e, errAborted)
			return
		}
		t, err := n.station(tried)
		if err != nil {
			n.drop(e, err)
			return
		}
		timeout := n.timeout(tried[t])
		if attempt > 0 {
			n.stats.retried.Add(1)
		}
		tried[t]++
		began := time.Now()
		err = n.attempt(e.note, t, timeout)
		if err == nil {
			n.answered(t)
			return
		}
		n.stats.failed.Add(1)
		if !n.cfg.Kind.acknowledged() {
			n.drop(e, err)
			return
		}
		n.log.WithError(err).WithField("notification", e.note.label).WithField("station", t.String()).
			WithField("attempt", tried[t]).Info("inform not acknowledged, will retry")
		n.unanswered(t)
		n.pause(e, began.Add(timeout))
	}
}

// isGone reports whether e has left the queue.
func isGone(e *entry) bool {
	select {
	case <-e.gone:
		return true
	default:
		return false
	}
}

// station picks where the next attempt goes: the first usable station, in
// the caller's order, that is not down and has attempts left for this
// notification; when every one with attempts left is down, the first of
// them. With none left the notification is given up.
func (n *Notifier) station(tried map[target]int) (target, error) {
	all, skipped := candidates(n.cfg.Stations())
	for _, bad := range skipped {
		n.log.WithError(bad).Warn("skipping management station with a malformed address")
	}
	var left []target
	for _, t := range all {
		if n.cfg.MaxAttempts == 0 || tried[t] < n.cfg.MaxAttempts {
			left = append(left, t)
		}
	}
	if len(left) == 0 {
		if len(tried) > 0 {
			return target{}, fmt.Errorf("no acknowledgement after %d attempts at each of %d stations", n.cfg.MaxAttempts, len(tried))
		}
		return target{}, ErrNoStation
	}
	now := time.Now()
	for _, t := range left {
		if !n.health.isDown(t, now) {
			return t, nil
		}
	}
	return left[0], nil
}

// timeout returns the wait of the given attempt: Timeout doubled per retry, capped.
func (n *Notifier) timeout(attempt int) time.Duration {
	d := n.cfg.Timeout
	for i := 0; i < attempt && d < n.cfg.MaxTimeout; i++ {
		d *= 2
	}
	return min(d, n.cfg.MaxTimeout)
}

// pause waits until the end of an attempt's slot, so fast failures (a refused
// port) are not retried in a tight loop; it returns early on abort or drop.
func (n *Notifier) pause(e *entry, until time.Time) {
	wait := time.Until(until)
	if wait <= 0 {
		return
	}
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-n.abort:
	case <-e.gone:
	}
}

// attempt sends the notification once to t and, for informs, waits for the answer.
func (n *Notifier) attempt(note notification, t target, timeout time.Duration) error {
	g := n.client(t, timeout)
	if err := g.Connect(); err != nil {
		return fmt.Errorf("connect to %s: %w", t, err)
	}
	defer g.Conn.Close()
	n.mu.Lock()
	if n.aborted {
		n.mu.Unlock()
		return errAborted
	}
	n.inflight = g.Conn
	n.mu.Unlock()
	defer n.clearInflight()

	result, err := g.SendTrap(note.trap(n.cfg.Kind, n.cfg.Uptime(), n.cfg.AgentAddress))
	n.stats.sent.Add(1)
	if err == nil && n.cfg.Kind.acknowledged() &&
		(result == nil || result.PDUType != gosnmp.GetResponse || result.Error != gosnmp.NoError) {
		err = fmt.Errorf("station %s did not acknowledge: %s", t, describe(result))
	} else if err != nil {
		err = fmt.Errorf("send to %s: %w", t, err)
	}
	if n.cfg.Kind == InformV3 {
		n.learn(t, g, err)
	}
	if err == nil && n.cfg.Kind.acknowledged() {
		n.stats.acknowledged.Add(1)
	}
	return err
}

// clearInflight forgets the socket of the finished attempt.
func (n *Notifier) clearInflight() {
	n.mu.Lock()
	n.inflight = nil
	n.mu.Unlock()
}

// describe summarises an unexpected answer to an inform.
func describe(p *gosnmp.SnmpPacket) string {
	if p == nil {
		return "no packet"
	}
	return fmt.Sprintf("PDU %v, error-status %v", p.PDUType, p.Error)
}

// client returns a gosnmp manager for one attempt to t, without its own retries.
func (n *Notifier) client(t target, timeout time.Duration) *gosnmp.GoSNMP {
	g := &gosnmp.GoSNMP{
		Target:    t.host,
		Port:      t.port,
		Transport: "udp",
		Community: n.cfg.Community,
		Timeout:   timeout,
		Retries:   0,
		MaxOids:   gosnmp.MaxOids,
	}
	switch n.cfg.Kind {
	case TrapV1:
		g.Version = gosnmp.Version1
	case TrapV2c, InformV2c:
		g.Version = gosnmp.Version2c
	case InformV3:
		g.Version = gosnmp.Version3
		g.SecurityModel = gosnmp.UserSecurityModel
		g.MsgFlags = gosnmp.AuthPriv
		if n.cfg.USM.PrivacyProtocol == gosnmp.NoPriv {
			g.MsgFlags = gosnmp.AuthNoPriv
		}
		g.SecurityParameters = n.usm(t)
	}
	if dst, err := netip.ParseAddr(t.host); err == nil && n.cfg.Source.IsValid() && n.cfg.Source.Unmap().Is4() == dst.Unmap().Is4() {
		g.LocalAddr = netip.AddrPortFrom(n.cfg.Source.Unmap(), 0).String() // only a source of the station's family
	}
	return g
}
