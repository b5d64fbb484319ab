package snmp

import (
	"encoding/binary"
	"errors"
	"slices"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/keyring"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// diagNodes returns the DIAGNOSIS-MIB objects, read from the request's snapshot.
func diagNodes(r *Responder) []node {
	nms := newScalar(mustOID(mib.NMSID), func(v *view) value { return ipAddr(mib.NodeADOf(v.snap.Station.Addr)) })
	if r.cfg.OnSetNMS != nil {
		nms.write = &writer{typ: gosnmp.IPAddress, mayFail: true, check: checkNMS, commit: r.commitNMS}
	}
	inject := newScalar(mustOID(mib.DiagFaultInject), func(v *view) value {
		return integer(r.fault.secondsLeft(v.now))
	})
	if r.cfg.FaultInjection {
		inject.write = &writer{typ: gosnmp.Integer, check: checkInject, commit: r.commitInject}
	}
	skew := newScalar(mustOID(mib.DiagFaultClockSkew), func(*view) value { return integer(int(r.skew.Load())) })
	if r.cfg.FaultInjection && r.cfg.OnClockSkew != nil {
		skew.write = &writer{typ: gosnmp.Integer, mayFail: true, check: checkSkew, commit: r.commitSkew}
	}
	push := newScalar(mustOID(mib.DiagPush), func(*view) value { return octets(nil) })
	if r.cfg.OnPush != nil {
		push.write = &writer{typ: gosnmp.OctetString, mayFail: true, agents: true, check: checkPush, commit: r.commitPush}
	}
	vantage := newScalar(mustOID(mib.DiagVantage), func(*view) value { return octets(nil) })
	if r.cfg.OnVantage != nil {
		vantage.write = &writer{typ: gosnmp.OctetString, mayFail: true, agents: true, check: checkVantage, commit: r.commitVantage}
	}
	keys := newScalar(mustOID(mib.DiagKeyChange), func(*view) value { return octets(nil) })
	if r.cfg.OnKeyChange != nil {
		keys.write = &writer{typ: gosnmp.OctetString, mayFail: true, agents: true, check: checkKeyChange, commit: r.commitKeyChange}
	}
	hello := newScalar(mustOID(mib.DiagHello), func(*view) value { return gauge(0) })
	if r.cfg.OnHello != nil {
		hello.write = &writer{typ: gosnmp.Gauge32, mayFail: true, agents: true, check: checkHello, commit: r.commitHello}
	}
	var list, delta node = writersOnlyWithSecrets(diagListTable()), writersOnlyWithSecrets(deltaTable{})
	if r.clusterUsers { // it holds the communities of tested-only nodes
		list, delta = agentsOnly(diagListTable()), agentsOnly(deltaTable{})
	}
	return []node{
		diagTreeTable(r),
		keys,
		hello,
		agentsOnly(diagKeyTable()),
		newScalar(mustOID(mib.DiagNodeNextID), func(v *view) value { return gauge(max(v.snap.NextID, 1)) }),
		list,
		delta,
		newScalar(mustOID(mib.DiagListStable), func(v *view) value { return octets(v.snap.ListStable) }),
		newScalar(mustOID(mib.IsTestedOnly), func(v *view) value { return str(displayFlag(v.snap.TestedOnly)) }),
		nms,
		newScalar(mustOID(mib.HiADSDisUP), func(v *view) value { return str(displayFlag(v.snap.Up)) }),
		newScalar(mustOID(mib.NMSIDCounter), func(v *view) value { return gauge(v.snap.Station.Counter) }),
		inject,
		skew,
		vantage,
		newScalar(mustOID(mib.DiagSelfDoubt), func(v *view) value { return integer(truth(v.snap.SelfDoubt)) }),
		newScalar(mustOID(mib.DiagUnreached), func(v *view) value { return octets(mib.EncodeNodeIDs(v.snap.Unreached)) }),
		newScalar(mustOID(mib.DiagLastEventSeq), func(v *view) value { return gauge(v.snap.LastSeq()) }),
		newScalar(mustOID(mib.DiagNodeListHash), func(v *view) value { return octets(v.snap.NodeListHash) }),
		newScalar(mustOID(mib.DiagNodeListVersion), func(v *view) value { return gauge(v.snap.ListVersion) }),
		newScalar(mustOID(mib.DiagNodeListIDs), func(v *view) value { return gauge(max(v.snap.ListIDs, uint32(len(v.snap.Nodes)))) }),
		newScalar(mustOID(mib.DiagViewDigest), func(v *view) value {
			if v.snap.Withheld {
				return octets([]byte{})
			}
			b := binary.BigEndian.AppendUint64(make([]byte, 0, 9), v.snap.Digest)
			switch {
			case v.snap.SelfDoubt: // the ninth octet: this agent's testers find it degraded
				b = append(b, 1)
			case v.snap.SeesLoss: // its testers measure its link
				b = append(b, 2)
			}
			return octets(b)
		}),
		push,
		diagEventTable(),
	}
}

// diagTreeTable serves diagTree, one row per node of the snapshot.
func diagTreeTable(r *Responder) *table {
	row := func(v *view, i int) *board.Row { return &v.snap.Nodes[i] }
	return &table{
		entry: mustOID(mib.DiagTreeEntry),
		size:  func(s *board.Snapshot) int { return len(s.Nodes) },
		key:   func(s *board.Snapshot, i int) uint32 { return s.Nodes[i].ID },
		cols: []column{
			{mib.ColNodeID, func(v *view, i int) value { return integer(int(row(v, i).ID)) }},
			{mib.ColNodeAD, func(v *view, i int) value { return ipAddr(mib.NodeADOf(row(v, i).Addr)) }},
			{mib.ColNodeStatus, func(v *view, i int) value { return integer(mib.DiagStatus(row(v, i).Status)) }},
			{mib.ColNodeEventCounter, func(v *view, i int) value { return gauge(row(v, i).Counter) }},
			{mib.ColNodeTestedOnly, func(v *view, i int) value { return integer(truth(row(v, i).TestedOnly)) }},
			{mib.ColNodeLastChange, func(v *view, i int) value { return ticks(row(v, i).LastChange) }},
			{mib.ColNodeHowLearned, func(v *view, i int) value { return integer(int(row(v, i).How)) }},
			{mib.ColNodeAddrType, func(v *view, i int) value { t, _ := mib.InetAddress(row(v, i).Addr); return integer(t) }},
			{mib.ColNodeAddr, func(v *view, i int) value { _, b := mib.InetAddress(row(v, i).Addr); return octets(b) }},
			{mib.ColNodePort, func(v *view, i int) value { return gauge(uint32(max(row(v, i).Port, 1))) }},
			{mib.ColNodeRowStatus, func(v *view, i int) value { return integer(mib.RowActive) }},
			{mib.ColNodeFlapping, func(v *view, i int) value { return integer(truth(row(v, i).Flapping)) }},
			{mib.ColNodeMaintUntil, func(v *view, i int) value {
				if w := row(v, i).Maint; w != nil {
					return octets(mib.DateAndTime(w.Until))
				}
				return octets(mib.NoDateAndTime)
			}},
			{mib.ColNodeMaintFor, func(v *view, i int) value {
				if w := row(v, i).Maint; w.Active(v.now) {
					return gauge(uint32((w.Until.Sub(v.now) + time.Second - 1) / time.Second))
				}
				return gauge(0)
			}},
			{mib.ColNodeMaintStatus, func(v *view, i int) value {
				if w := row(v, i).Maint; w != nil {
					return integer(mib.DiagStatus(w.Status))
				}
				return integer(mib.DiagStatus(hiadsd.Unknown))
			}},
			{mib.ColNodeName, func(v *view, i int) value { return str(row(v, i).Name) }},
			{mib.ColNodeHost, func(v *view, i int) value {
				if h := row(v, i).Host; h != "" {
					return str(h)
				}
				return str(row(v, i).Addr.String())
			}},
			{mib.ColNodeCommunity, func(*view, int) value { return octets(nil) }},
			{mib.ColNodeCauseGroup, func(v *view, i int) value { return gauge(v.snap.Causes[row(v, i).ID]) }},
		},
	}
}

// diagListTable serves the node list's chunks; its index is not accessible.
func diagListTable() *table {
	return &table{
		entry: mustOID(mib.DiagListEntry),
		size:  func(s *board.Snapshot) int { return len(s.List) },
		key:   func(_ *board.Snapshot, i int) uint32 { return uint32(i + 1) },
		cols:  []column{{mib.ColListChunk, func(v *view, i int) value { return octets(v.snap.List[i]) }}},
	}
}

// diagKeyTable serves diagKeyTable, one row per cluster key; its index
// column is not accessible.
func diagKeyTable() *table {
	key := func(v *view, i int) *board.Key { return &v.snap.Keys[i] }
	return &table{
		entry: mustOID(mib.DiagKeyEntry),
		size:  func(s *board.Snapshot) int { return len(s.Keys) },
		key:   func(s *board.Snapshot, i int) uint32 { return s.Keys[i].Index },
		cols: []column{
			{mib.ColKeyPrimary, func(v *view, i int) value { return integer(truth(key(v, i).Primary)) }},
			{mib.ColKeyValue, func(v *view, i int) value { return octets(key(v, i).Value) }},
		},
	}
}

// diagEventTable serves diagEventTable; its index column diagEventSeq is not accessible.
func diagEventTable() *table {
	ev := func(v *view, i int) *mib.Event { return &v.snap.Events[i] }
	return &table{
		entry: mustOID(mib.DiagEventEntry),
		size:  func(s *board.Snapshot) int { return len(s.Events) },
		key:   func(s *board.Snapshot, i int) uint32 { return s.Events[i].Seq },
		cols: []column{
			{mib.ColEventNodeID, func(v *view, i int) value { return integer(int(ev(v, i).NodeID)) }},
			{mib.ColEventStatus, func(v *view, i int) value { return integer(mib.DiagStatus(ev(v, i).Status)) }},
			{mib.ColEventPrevStatus, func(v *view, i int) value { return integer(mib.DiagStatus(ev(v, i).Prev)) }},
			{mib.ColEventCounter, func(v *view, i int) value { return gauge(ev(v, i).Counter) }},
			{mib.ColEventTime, func(v *view, i int) value { return octets(mib.DateAndTime(ev(v, i).Time)) }},
			{mib.ColEventHowLearned, func(v *view, i int) value { return integer(int(ev(v, i).How)) }},
			{mib.ColEventDetector, func(v *view, i int) value { return integer(int(ev(v, i).Detector)) }},
			{mib.ColEventSource, func(v *view, i int) value { return integer(int(ev(v, i).Source)) }},
		},
	}
}

// displayFlag renders a boolean as the paper's one-character DisplayString.
func displayFlag(b bool) string {
	if b {
		return "1"
	}
	return "0"
}

// truth renders a boolean as a TruthValue.
func truth(b bool) int {
	if b {
		return mib.TruthTrue
	}
	return mib.TruthFalse
}

// checkNMS accepts an IPv4 unicast host address (or 0.0.0.0, none) as the
// new station (board.StationAddr); broadcast, multicast, link-local and
// reserved addresses get wrongValue. A decoded IpAddress of another length
// arrives as a bad value.
func checkNMS(_ *view, val value) gosnmp.SNMPError {
	switch {
	case val.bad:
		return gosnmp.WrongLength
	case !board.StationAddr(val.addr()):
		return gosnmp.WrongValue
	}
	return gosnmp.NoError
}

// commitNMS hands the new station to the daemon.
func (r *Responder) commitNMS(_ *view, val value) error {
	return r.cfg.OnSetNMS(val.addr())
}

// checkPush accepts a value ParsePush decodes: wrongLength for a length
// no push has, wrongValue for a bad field.
func checkPush(_ *view, val value) gosnmp.SNMPError {
	_, err := board.ParsePush(val.raw)
	switch {
	case errors.Is(err, board.ErrPushLength):
		return gosnmp.WrongLength
	case err != nil:
		return gosnmp.WrongValue
	}
	return gosnmp.NoError
}

// commitPush hands the push to the daemon.
func (r *Responder) commitPush(_ *view, val value) error {
	p, err := board.ParsePush(val.raw)
	if err != nil {
		return err
	}
	return r.cfg.OnPush(p)
}

// checkVantage accepts a value ParseVantage decodes: wrongLength for a length
// no value has, wrongValue for a bad field.
func checkVantage(_ *view, val value) gosnmp.SNMPError {
	if len(val.raw) != board.VantageLen {
		return gosnmp.WrongLength
	}
	if _, err := board.ParseVantage(val.raw); err != nil {
		return gosnmp.WrongValue
	}
	return gosnmp.NoError
}

// commitVantage hands the question or answer to the daemon.
func (r *Responder) commitVantage(_ *view, val value) error {
	v, err := board.ParseVantage(val.raw)
	if err != nil {
		return err
	}
	return r.cfg.OnVantage(v)
}

// checkHello accepts the NodeID of a node of the snapshot.
func checkHello(v *view, val value) gosnmp.SNMPError {
	if !slices.ContainsFunc(v.snap.Nodes, func(r board.Row) bool { return uint64(r.ID) == uint64(val.num) }) {
		return gosnmp.WrongValue
	}
	return gosnmp.NoError
}

// commitHello hands the hello to the daemon.
func (r *Responder) commitHello(_ *view, val value) error { return r.cfg.OnHello(uint32(val.num)) }

// keyChangeLen is the length of a diagKeyChange value: a verb and a key.
const keyChangeLen = 33

// checkKeyChange accepts a verb and a key that fit the keys the agent
// runs: installing one it does not hold, using or removing one it holds,
// never removing the one in use (inconsistentValue otherwise).
func checkKeyChange(v *view, val value) gosnmp.SNMPError {
	if len(val.raw) != keyChangeLen {
		return gosnmp.WrongLength
	}
	verb, idx := int(val.raw[0]), keyIndex(val.raw[1:])
	held := slices.IndexFunc(v.snap.Keys, func(k board.Key) bool { return k.Index == idx })
	switch {
	case verb != mib.KeyInstall && verb != mib.KeyUse && verb != mib.KeyRemove:
		return gosnmp.WrongValue
	case (verb == mib.KeyInstall) == (held >= 0), verb == mib.KeyRemove && v.snap.Keys[held].Primary:
		return gosnmp.InconsistentValue
	}
	return gosnmp.NoError
}

// commitKeyChange hands the change to the daemon.
func (r *Responder) commitKeyChange(_ *view, val value) error {
	var k [32]byte
	copy(k[:], val.raw[1:])
	return r.cfg.OnKeyChange(int(val.raw[0]), k)
}

// checkInject accepts 0..MaxFaultInjectSeconds.
func checkInject(_ *view, val value) gosnmp.SNMPError {
	if n := val.int(); n < 0 || n > mib.MaxFaultInjectSeconds {
		return gosnmp.WrongValue
	}
	return gosnmp.NoError
}

// commitInject silences the responder for the seconds written (0 ends it).
func (r *Responder) commitInject(v *view, val value) error {
	r.fault.silence(v.now, time.Duration(val.int())*time.Second)
	return nil
}

// checkSkew accepts -MaxClockSkewSeconds..MaxClockSkewSeconds.
func checkSkew(_ *view, val value) gosnmp.SNMPError {
	if n := val.int(); n < -mib.MaxClockSkewSeconds || n > mib.MaxClockSkewSeconds {
		return gosnmp.WrongValue
	}
	return gosnmp.NoError
}

// commitSkew hands the skew written to the daemon, and serves it.
func (r *Responder) commitSkew(_ *view, val value) error {
	if err := r.cfg.OnClockSkew(time.Duration(val.int()) * time.Second); err != nil {
		return err
	}
	r.skew.Store(int64(val.int()))
	return nil
}

// keyIndex is the diagKeyTable index of the key in b (32 octets).
func keyIndex(b []byte) uint32 {
	var k keyring.Key
	copy(k[:], b)
	return k.Index()
}
