package probe

import (
	"context"
	"fmt"
	"strconv"

	"github.com/gosnmp/gosnmp"
)

// rowFunc receives one table row (one varbind per walked column) and says
// whether the walk is finished.
type rowFunc func(idx uint32, vbs []gosnmp.SnmpPDU) (done bool, err error)

// walk reads the rows after index from of several columns of one table with
// GETBULK, all columns in each request, until a column ends or fn is done.
// reps(limit) gives the max-repetitions of the next request (at most limit).
func (p *Prober) walk(ctx context.Context, t Target, cols []string, from uint32,
	reps func(limit int) int, fn rowFunc) error {
	return p.walkWith(ctx, t, nil, cols, from, reps, fn)
}

// walkWith is walk whose first GETBULK also carries pre: its non-repeaters,
// each answered with the next object after it, handed to pre.fn before the rows.
func (p *Prober) walkWith(ctx context.Context, t Target, pre *nonRepeaters, cols []string, from uint32,
	reps func(limit int) int, fn rowFunc) error {
	if err := acquire(ctx, p.slots); err != nil {
		return err
	}
	defer release(p.slots)
	bulk := func(g *gosnmp.GoSNMP, last uint32, pre *nonRepeaters) (*gosnmp.SnmpPacket, int, error) {
		start := make([]string, len(cols))
		for i, c := range cols {
			start[i] = c + "." + strconv.FormatUint(uint64(last), 10)
		}
		nr := 0
		if pre != nil {
			nr = len(pre.oids)
			start = append(pre.oids[:nr:nr], start...)
		}
		pkt, err := g.GetBulk(start, uint8(nr), uint32(max(1, reps(p.cfg.MaxRepetitions))))
		if err != nil {
			return nil, 0, fmt.Errorf("getbulk after index %d: %w", last, err)
		}
		return pkt, nr, nil
	}
	var pkt *gosnmp.SnmpPacket
	var nr int
	g, err := p.open(ctx, t, func(g *gosnmp.GoSNMP) (err error) {
		pkt, nr, err = bulk(g, from, pre)
		return err
	})
	if err != nil {
		return err
	}
	defer p.close(g, t)
	for last := from; ; {
		if pkt == nil {
			if pkt, nr, err = bulk(g, last, pre); err != nil {
				return err
			}
		}
		if pre != nil {
			if err := pre.take(pkt); err != nil {
				return err
			}
			pkt.Variables, pre = pkt.Variables[nr:], nil
		}
		next, done, err := walkReply(pkt, cols, last, fn)
		if err != nil || done {
			return err
		}
		last, pkt = next, nil
	}
}

// nonRepeaters are objects read once, in the first GETBULK of a walk.
type nonRepeaters struct {
	oids []string
	fn   func(vbs []gosnmp.SnmpPDU) error
}

// take checks that pkt answers every non-repeater and hands the answers to fn.
func (n *nonRepeaters) take(pkt *gosnmp.SnmpPacket) error {
	if pkt.Error != gosnmp.NoError {
		return fmt.Errorf("%w: error-status %v at index %v", ErrUnexpectedValue, pkt.Error, pkt.ErrorIndex)
	}
	if len(pkt.Variables) < len(n.oids) {
		return fmt.Errorf("%w: %d varbinds for %d non-repeaters", ErrMalformedReply, len(pkt.Variables), len(n.oids))
	}
	return n.fn(pkt.Variables[:len(n.oids)])
}

// walkReply hands the complete rows of one GETBULK reply to fn and returns
// the last index seen; a reply that does not move forward is malformed.
func walkReply(pkt *gosnmp.SnmpPacket, cols []string, last uint32, fn rowFunc) (uint32, bool, error) {
	if pkt.Error != gosnmp.NoError {
		return last, false, fmt.Errorf("%w: error-status %v at index %v", ErrUnexpectedValue, pkt.Error, pkt.ErrorIndex)
	}
	vbs := pkt.Variables
	if len(vbs) < len(cols) {
		return last, false, fmt.Errorf("%w: %d varbinds for %d columns", ErrMalformedReply, len(vbs), len(cols))
	}
	for ; len(vbs) >= len(cols); vbs = vbs[len(cols):] {
		idx, inTable, err := rowIndex(vbs[:len(cols)], cols)
		if err != nil || !inTable {
			return last, true, err
		}
		if idx <= last {
			return last, false, fmt.Errorf("%w: index %d after %d", ErrMalformedReply, idx, last)
		}
		last = idx
		if done, err := fn(idx, vbs[:len(cols)]); done || err != nil {
			return last, true, err
		}
	}
	return last, false, nil
}

// rowIndex checks that one repetition holds the same index in every column;
// inTable is false once the first column has been walked past.
func rowIndex(vbs []gosnmp.SnmpPDU, cols []string) (idx uint32, inTable bool, err error) {
	for i, c := range cols {
		if vbs[i].Type == gosnmp.EndOfMibView {
			if i == 0 {
				return 0, false, nil
			}
			return 0, false, fmt.Errorf("%w: column %s ends before column %s", ErrMalformedReply, c, cols[0])
		}
		k, in, err := columnIndex(vbs[i].Name, c)
		switch {
		case err != nil:
			return 0, false, err
		case !in && i == 0:
			return 0, false, nil
		case !in:
			return 0, false, fmt.Errorf("%w: %s is outside column %s", ErrMalformedReply, vbs[i].Name, c)
		case i > 0 && k != idx:
			return 0, false, fmt.Errorf("%w: row %d of %s beside row %d of %s", ErrMalformedReply, k, c, idx, cols[0])
		}
		idx = k
	}
	return idx, true, nil
}
