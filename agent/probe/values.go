package probe

import (
	"context"
	"fmt"
	"net/netip"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// intValue reads an INTEGER / Integer32 varbind.
func intValue(vb gosnmp.SnmpPDU) (int, error) {
	v, ok := vb.Value.(int)
	if vb.Type != gosnmp.Integer || !ok {
		return 0, fmt.Errorf("%w: %s has type %v, want INTEGER", ErrUnexpectedValue, vb.Name, vb.Type)
	}
	return v, nil
}

// rangedValue reads an INTEGER that must lie in lo..hi.
func rangedValue(vb gosnmp.SnmpPDU, lo, hi int) (int, error) {
	v, err := intValue(vb)
	if err != nil {
		return 0, err
	}
	if v < lo || v > hi {
		return 0, fmt.Errorf("%w: %s is %d, want %d..%d", ErrUnexpectedValue, vb.Name, v, lo, hi)
	}
	return v, nil
}

// statusValue reads a nodeStatus-like enumeration.
func statusValue(vb gosnmp.SnmpPDU) (hiadsd.Status, error) {
	v, err := rangedValue(vb, 0, 4)
	if err != nil {
		return hiadsd.Unknown, err
	}
	return mib.StatusOf(v)
}

// unsignedValue reads an Unsigned32 (sent as Gauge32) varbind.
func unsignedValue(vb gosnmp.SnmpPDU) (uint32, error) {
	v, ok := vb.Value.(uint)
	if (vb.Type != gosnmp.Gauge32 && vb.Type != gosnmp.Uinteger32) || !ok || v > 1<<32-1 {
		return 0, fmt.Errorf("%w: %s has type %v, want Unsigned32", ErrUnexpectedValue, vb.Name, vb.Type)
	}
	return uint32(v), nil
}

// ipValue reads an IpAddress varbind.
func ipValue(vb gosnmp.SnmpPDU) (netip.Addr, error) {
	s, ok := vb.Value.(string)
	if vb.Type != gosnmp.IPAddress || !ok {
		return netip.Addr{}, fmt.Errorf("%w: %s has type %v, want IpAddress", ErrUnexpectedValue, vb.Name, vb.Type)
	}
	a, err := netip.ParseAddr(s)
	if err != nil || !a.Is4() {
		return netip.Addr{}, fmt.Errorf("%w: %s is %q, want an IPv4 address", ErrUnexpectedValue, vb.Name, s)
	}
	return a, nil
}

// dateAndTimeValue reads a DateAndTime (SNMPv2-TC) of 8 octets (UTC) or 11
// octets (with the offset from UTC), and returns it in UTC.
func dateAndTimeValue(vb gosnmp.SnmpPDU) (time.Time, error) {
	b, ok := vb.Value.([]byte)
	if vb.Type != gosnmp.OctetString || !ok {
		return time.Time{}, fmt.Errorf("%w: %s is not an OCTET STRING", ErrUnexpectedValue, vb.Name)
	}
	t, err := mib.ParseDateAndTime(b, time.UTC)
	if err != nil {
		return time.Time{}, fmt.Errorf("%w: %s: %w", ErrUnexpectedValue, vb.Name, err)
	}
	return t, nil
}

// FetchWindow reads the end of node's maintenance window at the agent at
// t (nodeMaintenanceUntil), zero when it has none: what diagagent
// maintenance compares across agents.
func (p *Prober) FetchWindow(ctx context.Context, t Target, node uint32) (time.Time, error) {
	vbs, err := p.Get(ctx, t, mib.TreeCell(mib.ColNodeMaintUntil, int(node)))
	if err != nil {
		return time.Time{}, err
	}
	if len(vbs) != 1 {
		return time.Time{}, fmt.Errorf("%w: %d values for one nodeMaintenanceUntil", ErrMalformedReply, len(vbs))
	}
	return dateAndTimeValue(vbs[0])
}
