package board

import (
	"encoding/binary"
	"hash/fnv"
	"net/netip"

	"github.com/diagagent/diagagent/agent/nodelist"
	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// Snapshot is one immutable picture of the node's diagnosis view; the daemon
// builds a new one for every change and hands it over with Publish.
type Snapshot struct {
	// Nodes are the diagTree rows in ascending NodeID order.
	Nodes []Row
	// Events are the diagEventTable rows in ascending Seq order (oldest first).
	Events []mib.Event
	// Self is this agent's NodeID; TestedOnly is its isTestedOnly value.
	Self       uint32
	TestedOnly bool
	// Up is hiADSDisUP: the diagnosis loop began or finished an interval recently.
	Up bool
	// Station is the current network management station, nmsID (the zero
	// Addr reads as 0.0.0.0) with its counter, nmsIDCounter.
	Station hiadsd.Station
	// NodeListHash is diagNodeListHash, the fingerprint of the node list (8 octets).
	NodeListHash []byte
	// ListMismatch are the NodeIDs of the peers last read with another node list.
	ListMismatch []uint32
	// ListVersion is diagNodeListVersion; ListIDs is diagNodeListIDs, the
	// node ids given so far, removed ones included.
	ListVersion, ListIDs uint32
	// Digest is diagViewDigest: FetchDigest of this snapshot, which the
	// publisher sets.
	Digest uint64
	// Withheld serves diagViewDigest as the empty string: the rows hold
	// verdicts made while this agent was cut off, not to be read by peers.
	Withheld bool
	// SelfDoubt is diagSelfDoubt: the agent doubts its own tests.
	SelfDoubt bool
	// SeesLoss says the agent sees loss on its own tests, without doubting
	// them yet (hiadsd.Doubt.SeesLoss): diagViewDigest's ninth octet 2.
	SeesLoss bool
	// Unreached is diagUnreached: the NodeIDs, ascending, this agent
	// cannot reach while other agents do.
	Unreached []uint32
	// KeyRefused are the NodeIDs of the peers that refused every cluster
	// key this agent holds when it last tested them.
	KeyRefused []uint32
	// Keys are diagKeyTable's rows in ascending Index order: the cluster
	// keys the agent runs, which only the cluster's users are served.
	Keys []Key
	// NextID is diagNodeNextID: where a manager creates the next row.
	NextID uint32
	// List is diagListTable's rows: the node list with every change
	// stamped (nodelist.List.Marshal), in chunks of mib.ListChunkSize.
	List [][]byte
	// ListSecret says that List holds a secret: the community of a node
	// added by a manager. Without cluster users, only a request that may
	// SET reads it.
	ListSecret bool
	// ListStable is diagListStable: the stamp the list was last collected
	// at, encoded; empty for a list never collected.
	ListStable []byte
	// ListDelta serves diagListDeltaTable: the chunks of what a reader of
	// the given summary lacks of the list (nodelist.List.Delta); an error
	// for a malformed summary. Nil while the agent serves no list.
	ListDelta func(since []byte) ([][]byte, error)
	// Causes is nodeCauseGroup: per NodeID of a node out with others lost
	// together, their group's diagCauseGroup; nil when none is out.
	Causes map[uint32]uint32
}

// Chunks cuts an encoded list into diagListTable's rows.
func Chunks(b []byte) [][]byte {
	var out [][]byte
	for len(b) > 0 {
		n := min(len(b), mib.ListChunkSize)
		out, b = append(out, b[:n:n]), b[n:]
	}
	return out
}

// Key is one row of diagKeyTable.
type Key struct {
	Index   uint32
	Primary bool
	Value   []byte
}

// FetchDigest returns a digest of what a peer's fetch reads from s: the
// station and its counter, the node list's fingerprint and version, and
// every row's NodeID, status and event counter (FNV-1a, 64 bits). It never
// returns 0, which a tester takes as no digest told.
func (s *Snapshot) FetchDigest() uint64 {
	h := fnv.New64a()
	var b [16]byte
	a := mib.NodeADOf(s.Station.Addr).As4()
	copy(b[:4], a[:])
	binary.BigEndian.PutUint32(b[4:], s.Station.Counter)
	binary.BigEndian.PutUint32(b[8:], s.ListVersion)
	binary.BigEndian.PutUint32(b[12:], uint32(len(s.Nodes)))
	h.Write(b[:])
	h.Write(s.NodeListHash)
	for k := range s.Nodes {
		r := &s.Nodes[k]
		binary.BigEndian.PutUint32(b[:4], r.ID)
		binary.BigEndian.PutUint32(b[4:8], uint32(mib.DiagStatus(r.Status)))
		binary.BigEndian.PutUint32(b[8:12], r.Counter)
		h.Write(b[:12])
	}
	return max(h.Sum64(), 1)
}

// Row is one diagTree row: what this agent believes about one node.
type Row struct {
	// ID is nodeID, the node's core id plus one (1..65535).
	ID uint32
	// Member is the node as the node list has it: nodeAddr (and nodeAD for
	// IPv4) is its address, nodePort its port, nodeTestedOnly its role;
	// the page shows its name.
	nodelist.Member
	// Status is nodeStatus.
	Status hiadsd.Status
	// Counter is nodeEventCounter, the event counter of the entry.
	Counter uint32
	// LastChange is nodeLastChange in hundredths of a second of sysUpTime, 0 if never.
	LastChange uint32
	// How is nodeHowLearned.
	How mib.Source
	// Flapping is nodeFlapping (agent/flap).
	Flapping bool
}

// HoldsFaulty reports whether a node at address a is a row held faulty: a
// station there cannot take notifications.
func (s *Snapshot) HoldsFaulty(a netip.Addr) bool {
	for _, r := range s.Nodes {
		if r.Addr == a && r.Status == hiadsd.Faulty {
			return true
		}
	}
	return false
}

// LastSeq returns diagLastEventSeq: the newest event's sequence number, or 0.
func (s *Snapshot) LastSeq() uint32 {
	if len(s.Events) == 0 {
		return 0
	}
	return s.Events[len(s.Events)-1].Seq
}
