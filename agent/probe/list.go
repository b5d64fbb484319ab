package probe

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/mib"
)

// List is a peer's node list as FetchList reads it: every fact with its
// stamp (diagListTable), and the cluster keys it runs.
type List struct {
	nodelist.List
	// KeyRows are the peer's diagKeyTable rows, read when this prober
	// speaks SNMPv3 (the table is served to the cluster's users only).
	KeyRows []Key
}

// Key is one row of a peer's diagKeyTable: a cluster key by its index.
type Key struct {
	Index   uint32
	Primary bool
	Value   []byte
}

// ErrNoListTable is FetchList's error for a peer that serves no
// diagListTable: an agent of an older format, whose list does not merge.
var ErrNoListTable = errors.New("the peer serves no diagListTable: it runs an older format of the node list")

// maxListOctets bounds the encoded list a peer may serve: 65,535 entries
// of about a hundred octets at most.
const maxListOctets = 8 << 20

// FetchList reads a peer's node list: the chunks of diagListTable in order,
// one GETBULK each, decoded (nodelist.Unmarshal: a list read while it
// changed does not give the fingerprint it was sent with, and is an
// error), then, as one of the cluster's users, its keys. Under SNMPv2c a
// peer serves a list that holds a device's community to the write
// community alone: a list the read community finds empty is read again
// with the write community, if there is one.
func (p *Prober) FetchList(ctx context.Context, t Target) (List, error) {
	agent := !t.TestedOnly && t.Community == ""
	b, err := p.listOctets(ctx, t)
	if errors.Is(err, ErrNoListTable) && agent && p.cfg.V3 == nil && p.cfg.WriteCommunity != "" {
		w := t
		w.Community = p.cfg.WriteCommunity
		b, err = p.listOctets(ctx, w)
	}
	var l List
	if err == nil {
		l.List, err = nodelist.Unmarshal(b)
	}
	if err == nil && p.users.Load() != nil && agent {
		l.KeyRows, err = p.FetchKeys(ctx, t)
	}
	if err != nil {
		return List{}, fmt.Errorf("read the node list of %s: %w", t.Addr, err)
	}
	return l, nil
}

// FetchDelta reads what a peer's node list holds that a list of summary
// since (nodelist.List.Summary) lacks: the chunks of its
// diagListDeltaTable row for since, as one octet string (a delta, or its
// whole list when it collected past the summary; nodelist.IsDelta tells
// which). A peer that serves no such row (a release before 1.1) is
// ErrNoListTable. Under SNMPv2c, it reads again with the write community
// as FetchList does.
func (p *Prober) FetchDelta(ctx context.Context, t Target, since []byte) ([]byte, error) {
	col := mib.DiagListDeltaChunk + "." + strconv.Itoa(len(since))
	for _, b := range since {
		col += "." + strconv.Itoa(int(b))
	}
	b, err := p.chunks(ctx, t, col, 2)
	if errors.Is(err, ErrNoListTable) && !t.TestedOnly && t.Community == "" && p.cfg.V3 == nil && p.cfg.WriteCommunity != "" {
		w := t
		w.Community = p.cfg.WriteCommunity
		b, err = p.chunks(ctx, w, col, 2)
	}
	if err != nil {
		return nil, fmt.Errorf("read the node list changes of %s: %w", t.Addr, err)
	}
	return b, nil
}

// listOctets reads the chunks of t's diagListTable, in order; none is
// ErrNoListTable.
func (p *Prober) listOctets(ctx context.Context, t Target) ([]byte, error) {
	return p.chunks(ctx, t, mib.DiagListChunk, 1)
}

// chunks reads the chunks of column col (diagListChunk, or a
// diagListDeltaChunk row), indexed 1, 2, ..., in order, reps to a
// GETBULK (a delta of one chunk and the end of its row come in one
// reply with 2); none is ErrNoListTable.
func (p *Prober) chunks(ctx context.Context, t Target, col string, reps int) ([]byte, error) {
	var b []byte
	var chunks uint32
	err := p.walk(ctx, t, []string{col}, 0, func(int) int { return reps },
		func(idx uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			v, ok := vbs[0].Value.([]byte)
			chunks++
			if !ok || len(v) == 0 || len(v) > mib.ListChunkSize || idx != chunks || len(b)+len(v) > maxListOctets {
				return true, fmt.Errorf("%w: chunk %d (%d octets after %d)", ErrMalformedReply, idx, len(v), len(b))
			}
			b = append(b, v...)
			return false, nil
		})
	if err == nil && len(b) == 0 {
		err = ErrNoListTable
	}
	return b, err
}

// FetchKeys reads a peer's diagKeyTable: the cluster keys it runs, which
// it serves to the cluster's users alone (none to anyone else).
func (p *Prober) FetchKeys(ctx context.Context, t Target) ([]Key, error) {
	var out []Key
	err := p.walk(ctx, t, []string{mib.DiagKeyPrimary, mib.DiagKeyValue}, 0, func(remaining int) int { return remaining },
		func(idx uint32, vbs []gosnmp.SnmpPDU) (bool, error) {
			primary, ok := vbs[0].Value.(int)
			v, ok2 := vbs[1].Value.([]byte)
			if !ok || !ok2 || (primary != mib.TruthTrue && primary != mib.TruthFalse) || len(v) != 32 || len(out) >= maxKeys {
				return true, fmt.Errorf("%w: diagKeyTable row %d: %v, %d octets", ErrMalformedReply, idx, vbs[0].Value, len(v))
			}
			out = append(out, Key{Index: idx, Primary: primary == mib.TruthTrue, Value: v})
			return false, nil
		})
	if err != nil {
		return nil, fmt.Errorf("read the keys of %s: %w", t.Addr, err)
	}
	return out, nil
}

// maxKeys bounds the keys a peer's table may list: a keyring is a few
// keys during a rotation, never hundreds.
const maxKeys = 64

// ListState is what a peer says of the node list it runs: its version,
// fingerprint and the stamp it was last collected at.
type ListState struct {
	Version uint32
	Hash    []byte
	// Stable is diagListStable; Collects is false for a peer that serves
	// none (a release before 1.1, which does not take a collected list).
	Stable   []byte
	Collects bool
}

// ListState reads diagNodeListVersion, diagNodeListHash and
// diagListStable of a peer, in one GET.
func (p *Prober) ListState(ctx context.Context, t Target) (ListState, error) {
	vbs, err := p.Get(ctx, t, mib.DiagNodeListVersion0, mib.DiagNodeListHash0, mib.DiagListStable0)
	if err != nil {
		return ListState{}, err
	}
	if len(vbs) != 3 {
		return ListState{}, fmt.Errorf("%w: %d varbinds for 3", ErrMalformedReply, len(vbs))
	}
	var s ListState
	v, ok := vbs[0].Value.(uint)
	h, ok2 := vbs[1].Value.([]byte)
	if !ok || !ok2 {
		return ListState{}, fmt.Errorf("%w: diagNodeListVersion %v, diagNodeListHash %v", ErrMalformedReply, vbs[0].Value, vbs[1].Value)
	}
	s.Version, s.Hash = uint32(v), h
	s.Stable, s.Collects = vbs[2].Value.([]byte)
	return s, nil
}
