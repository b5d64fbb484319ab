package mib

import (
	"net/netip"
	"strconv"
)

// Object identifiers of the DIAGNOSIS-MIB in the dotted form gosnmp uses
// (leading dot). Scalars also have an instance constant ending in ".0".
const (
	// DiagnosisMIB is the module root, enterprises.200 as in the Hi-ADSD paper.
	DiagnosisMIB = ".1.3.6.1.4.1.200"
	// HiADSDGroup is the paper's group node holding every object.
	HiADSDGroup = DiagnosisMIB + ".1"

	// DiagTree is the table with one row per node of the system.
	DiagTree = HiADSDGroup + ".1"
	// DiagTreeEntry is the row of DiagTree, indexed by NodeID.
	DiagTreeEntry = DiagTree + ".1"
	// NodeID is the index column: the node's id in the algorithms plus one.
	NodeID = DiagTreeEntry + ".1"
	// NodeAD is the node's IPv4 address.
	NodeAD = DiagTreeEntry + ".2"
	// NodeStatus is the node's diagnosed status (see Status).
	NodeStatus = DiagTreeEntry + ".3"
	// NodeEventCounter is the event counter (timestamp) of the node's entry.
	NodeEventCounter = DiagTreeEntry + ".4"
	// NodeTestedOnly tells (TruthValue) whether the node is tested-only.
	NodeTestedOnly = DiagTreeEntry + ".5"
	// NodeLastChange is the sysUpTime at which this agent saw the entry change.
	NodeLastChange = DiagTreeEntry + ".6"
	// NodeHowLearned tells how this agent got the entry (see HowLearned).
	NodeHowLearned = DiagTreeEntry + ".7"
	// NodeAddrType is the InetAddressType of NodeAddr: ipv4 or ipv6.
	NodeAddrType = DiagTreeEntry + ".8"
	// NodeAddr is the node's address, IPv4 or IPv6 (RFC 4001 InetAddress).
	NodeAddr = DiagTreeEntry + ".9"
	// NodePort is the UDP port of the node's SNMP agent.
	NodePort = DiagTreeEntry + ".10"
	// NodeRowStatus is the row's RowStatus: createAndGo adds a node, destroy removes it.
	NodeRowStatus = DiagTreeEntry + ".11"
	// NodeFlapping is the column telling whether the node flaps.
	NodeFlapping = DiagTreeEntry + ".12"
	// NodeMaintenanceUntil is the end of the node's maintenance window (DateAndTime).
	NodeMaintenanceUntil = DiagTreeEntry + ".13"
	// NodeMaintenanceFor is the seconds left in the node's maintenance window.
	NodeMaintenanceFor = DiagTreeEntry + ".14"
	// NodeMaintenanceStatus is the node's status when its window began.
	NodeMaintenanceStatus = DiagTreeEntry + ".15"
	// NodeName is the node's name.
	NodeName = DiagTreeEntry + ".16"
	// NodeHost is the host name the node is given by, or its address as text.
	NodeHost = DiagTreeEntry + ".17"
	// NodeCommunity is the community a tested-only node is tested with (write only).
	NodeCommunity = DiagTreeEntry + ".18"
	// NodeCauseGroup is the diagCauseGroup of the group the node is out
	// with, 0 when it is in none.
	NodeCauseGroup = DiagTreeEntry + ".19"

	// IsTestedOnly is "0" on a testing node and "1" on a tested-only node.
	IsTestedOnly = HiADSDGroup + ".2"
	// NMSID is the address of the current network management station.
	NMSID = HiADSDGroup + ".3"
	// HiADSDisUP is "1" while the diagnosis loop keeps finishing intervals.
	HiADSDisUP = HiADSDGroup + ".4"
	// NMSIDCounter is the event counter carried with NMSID.
	NMSIDCounter = HiADSDGroup + ".5"
	// DiagFaultInject silences the agent's SNMP service for the seconds written.
	DiagFaultInject = HiADSDGroup + ".6"
	// DiagFaultClockSkew moves the agent's clock for its node list by the
	// seconds written (fault injection).
	DiagFaultClockSkew = HiADSDGroup + ".21"
	// DiagVantage is written by a peer to ask this agent to test a node, or
	// to answer such a question (board.Vantage).
	DiagVantage = HiADSDGroup + ".22"
	// DiagSelfDoubt says whether the agent doubts its own tests.
	DiagSelfDoubt = HiADSDGroup + ".23"
	// DiagUnreached lists the nodes the agent cannot reach while other
	// agents do.
	DiagUnreached = HiADSDGroup + ".24"
	// DiagListStable is the stamp the node list was last collected at.
	DiagListStable = HiADSDGroup + ".25"
	// DiagListDeltaTable serves a reader the changes of the node list it
	// lacks, for the summary of what it holds that indexes the row.
	DiagListDeltaTable = HiADSDGroup + ".26"
	// DiagListDeltaEntry is the row of DiagListDeltaTable.
	DiagListDeltaEntry = DiagListDeltaTable + ".1"
	// DiagListDeltaSince is the summary index column (not accessible).
	DiagListDeltaSince = DiagListDeltaEntry + ".1"
	// DiagListDeltaChunkIndex is the chunk index column (not accessible).
	DiagListDeltaChunkIndex = DiagListDeltaEntry + ".2"
	// DiagListDeltaChunk is one chunk of the encoded changes.
	DiagListDeltaChunk = DiagListDeltaEntry + ".3"
	// DiagLastEventSeq is the sequence number of the newest event row.
	DiagLastEventSeq = HiADSDGroup + ".7"
	// DiagNodeListHash is the fingerprint of the node list the agent runs.
	DiagNodeListHash = HiADSDGroup + ".9"
	// DiagNodeListVersion is the version of the node list the agent runs.
	DiagNodeListVersion = HiADSDGroup + ".10"
	// DiagNodeListIDs is the number of node ids given so far, removed ones included.
	DiagNodeListIDs = HiADSDGroup + ".11"
	// DiagViewDigest is a digest of what a fetch of this agent's diagnosis reads.
	DiagViewDigest = HiADSDGroup + ".12"
	// DiagPush is written by a peer to push rows down the vCube tree (Push).
	DiagPush = HiADSDGroup + ".13"
	// DiagKeyChange is written, by agents only, to install, use or remove a
	// cluster key (KeyChange).
	DiagKeyChange = HiADSDGroup + ".14"
	// DiagHello is written by an agent that restarted or reconnected, with
	// its NodeID, to ask its testers to test it now.
	DiagHello = HiADSDGroup + ".16"
	// DiagNodeNextID is the index at which a manager creates the next diagTree row.
	DiagNodeNextID = HiADSDGroup + ".17"
	// DiagListTable serves the node list, every change stamped, in chunks.
	DiagListTable = HiADSDGroup + ".18"
	// DiagListEntry is the row of DiagListTable, indexed by the chunk's place.
	DiagListEntry = DiagListTable + ".1"
	// DiagListChunkIndex is the index column (not accessible).
	DiagListChunkIndex = DiagListEntry + ".1"
	// DiagListChunk is one chunk of the encoded list (nodelist.List.Marshal).
	DiagListChunk = DiagListEntry + ".2"
	// DiagConflict holds the objects diagNodeListConflict carries.
	DiagConflict = HiADSDGroup + ".19"
	// DiagConflictNode is the node a change that lost was about.
	DiagConflictNode = DiagConflict + ".1"
	// DiagConflictWinner is the agent at which the change that won was made.
	DiagConflictWinner = DiagConflict + ".2"
	// DiagConflictReason says what was lost to what, in words.
	DiagConflictReason = DiagConflict + ".3"
	// DiagCause holds the objects diagCauseChange carries.
	DiagCause = HiADSDGroup + ".20"
	// DiagCauseKind says whether the nodes were lost or came back, and how.
	DiagCauseKind = DiagCause + ".1"
	// DiagCauseGroup identifies a group lost together, the same in its return.
	DiagCauseGroup = DiagCause + ".2"
	// DiagCauseSplit identifies the partition: the same at both sides of a cut.
	DiagCauseSplit = DiagCause + ".3"
	// DiagCauseNodes counts the nodes of the cause.
	DiagCauseNodes = DiagCause + ".4"
	// DiagCauseNodeList names them, as ranges of NodeIDs.
	DiagCauseNodeList = DiagCause + ".5"
	// DiagCauseSubnet is the smallest prefix holding their addresses.
	DiagCauseSubnet = DiagCause + ".6"
	// DiagCauseLasted is how long a group that came back was out, in seconds.
	DiagCauseLasted = DiagCause + ".7"
	// DiagKeyTable lists the cluster keys the agent runs; only the cluster's
	// users see it.
	DiagKeyTable = HiADSDGroup + ".15"
	// DiagKeyEntry is the row of DiagKeyTable, indexed by the key's index.
	DiagKeyEntry = DiagKeyTable + ".1"
	// DiagKeyIndex is the index column (not accessible): the key's Index.
	DiagKeyIndex = DiagKeyEntry + ".1"
	// DiagKeyPrimary is the column telling the key agents send with.
	DiagKeyPrimary = DiagKeyEntry + ".2"
	// DiagKeyValue is the column holding the key itself (32 octets).
	DiagKeyValue = DiagKeyEntry + ".3"

	// DiagEventTable is the bounded table of status changes seen by this agent.
	DiagEventTable = HiADSDGroup + ".8"
	// DiagEventEntry is the row of DiagEventTable, indexed by DiagEventSeq.
	DiagEventEntry = DiagEventTable + ".1"
	// DiagEventSeq is the index column (not accessible): the event's sequence number.
	DiagEventSeq = DiagEventEntry + ".1"
	// DiagEventNodeID is the NodeID of the node whose status changed.
	DiagEventNodeID = DiagEventEntry + ".2"
	// DiagEventStatus is the new status of the node.
	DiagEventStatus = DiagEventEntry + ".3"
	// DiagEventPrevStatus is the status of the node before the change.
	DiagEventPrevStatus = DiagEventEntry + ".4"
	// DiagEventCounter is the node's event counter after the change.
	DiagEventCounter = DiagEventEntry + ".5"
	// DiagEventTime is the wall-clock time (DateAndTime) the change was recorded.
	DiagEventTime = DiagEventEntry + ".6"
	// DiagEventHowLearned tells whether the change was tested or learned.
	DiagEventHowLearned = DiagEventEntry + ".7"
	// DiagEventDetector is the NodeID of the direct tester, 0 if unknown.
	DiagEventDetector = DiagEventEntry + ".8"
	// DiagEventSource is the NodeID of the agent a learned event was read from, 0 if tested.
	DiagEventSource = DiagEventEntry + ".9"

	// DiagNotifications is the branch of the notifications.
	DiagNotifications = DiagnosisMIB + ".2"
	// DiagNotificationPrefix is the SMIv2 ".0" arc under which notifications sit.
	DiagNotificationPrefix = DiagNotifications + ".0"
	// DiagNodeStatusChange is the notification sent for each new event.
	DiagNodeStatusChange = DiagNotificationPrefix + ".1"
	// DiagNMSChange is the notification sent when the station changes.
	DiagNMSChange = DiagNotificationPrefix + ".2"
	// DiagNodeListMismatch is the notification sent when a peer runs another node list.
	DiagNodeListMismatch = DiagNotificationPrefix + ".3"
	// DiagNodeListChange is the notification sent for each node added to or removed from the list.
	DiagNodeListChange = DiagNotificationPrefix + ".4"
	// DiagNodeKeyRefused is the notification sent when a tested agent
	// refuses every cluster key the tester holds.
	DiagNodeKeyRefused = DiagNotificationPrefix + ".5"
	// DiagNodeFlapping is the notification sent when a node starts or stops flapping.
	DiagNodeFlapping = DiagNotificationPrefix + ".6"
	// DiagNodeMaintenanceEnded is the notification sent when a node's
	// maintenance window ends with its status changed.
	DiagNodeMaintenanceEnded = DiagNotificationPrefix + ".7"
	// DiagNodeListConflict is the notification sent when a change of the
	// list made at this agent lost to one made at once elsewhere.
	DiagNodeListConflict = DiagNotificationPrefix + ".8"
	// DiagCauseChange is the notification sent for nodes lost together or
	// coming back together: one cause.
	DiagCauseChange = DiagNotificationPrefix + ".9"
	// ColdStart is SNMPv2-MIB's coldStart, sent when an agent starts.
	ColdStart = ".1.3.6.1.6.3.1.1.5.1"
	// AuthenticationFailure is SNMPv2-MIB's authenticationFailure.
	AuthenticationFailure = ".1.3.6.1.6.3.1.1.5.5"

	// DiagConformance is the conformance branch.
	DiagConformance = DiagnosisMIB + ".3"
	// DiagCompliances holds the MODULE-COMPLIANCE statements.
	DiagCompliances = DiagConformance + ".1"
	// DiagGroups holds the OBJECT-GROUPs and NOTIFICATION-GROUPs.
	DiagGroups = DiagConformance + ".2"
	// DiagCompliance is the module's MODULE-COMPLIANCE statement.
	DiagCompliance = DiagCompliances + ".1"
	// DiagPaperGroup groups the objects of the paper's module.
	DiagPaperGroup = DiagGroups + ".1"
	// DiagExtensionGroup groups the objects this project added.
	DiagExtensionGroup = DiagGroups + ".2"
	// DiagNotificationGroup groups the two notifications.
	DiagNotificationGroup = DiagGroups + ".3"
)

// Scalar instances (object identifier plus ".0"), ready for GET and SET.
const (
	// IsTestedOnly0 is the instance of IsTestedOnly.
	IsTestedOnly0 = IsTestedOnly + ".0"
	// NMSID0 is the instance of NMSID.
	NMSID0 = NMSID + ".0"
	// HiADSDisUP0 is the instance of HiADSDisUP.
	HiADSDisUP0 = HiADSDisUP + ".0"
	// NMSIDCounter0 is the instance of NMSIDCounter.
	NMSIDCounter0 = NMSIDCounter + ".0"
	// DiagFaultClockSkew0 is the instance of DiagFaultClockSkew.
	DiagFaultClockSkew0 = DiagFaultClockSkew + ".0"
	// DiagFaultInject0 is the instance of DiagFaultInject.
	DiagFaultInject0 = DiagFaultInject + ".0"
	// DiagLastEventSeq0 is the instance of DiagLastEventSeq.
	DiagLastEventSeq0 = DiagLastEventSeq + ".0"
	// DiagNodeListHash0 is the instance of DiagNodeListHash.
	DiagNodeListHash0 = DiagNodeListHash + ".0"
	// DiagNodeListVersion0 is the instance of DiagNodeListVersion.
	DiagNodeListVersion0 = DiagNodeListVersion + ".0"
	// DiagNodeListIDs0 is the instance of DiagNodeListIDs.
	DiagNodeListIDs0 = DiagNodeListIDs + ".0"
	// DiagViewDigest0 is the instance of DiagViewDigest.
	DiagViewDigest0 = DiagViewDigest + ".0"
	// DiagPush0 is the instance of DiagPush.
	DiagPush0 = DiagPush + ".0"
	// DiagVantage0 is the instance of DiagVantage.
	DiagVantage0 = DiagVantage + ".0"
	// DiagSelfDoubt0 is the instance of DiagSelfDoubt.
	DiagSelfDoubt0 = DiagSelfDoubt + ".0"
	// DiagUnreached0 is the instance of DiagUnreached.
	DiagUnreached0 = DiagUnreached + ".0"
	// DiagListStable0 is the instance of DiagListStable.
	DiagListStable0 = DiagListStable + ".0"
	// DiagKeyChange0 is the instance of DiagKeyChange.
	DiagKeyChange0 = DiagKeyChange + ".0"
	// DiagHello0 is the instance of DiagHello.
	DiagHello0 = DiagHello + ".0"
	// DiagNodeNextID0 is the instance of DiagNodeNextID.
	DiagNodeNextID0 = DiagNodeNextID + ".0"
	// DiagConflictNode0, DiagConflictWinner0 and DiagConflictReason0 are
	// the instances a diagNodeListConflict carries.
	DiagConflictNode0   = DiagConflictNode + ".0"
	DiagConflictWinner0 = DiagConflictWinner + ".0"
	DiagConflictReason0 = DiagConflictReason + ".0"
	// The instances a diagCauseChange carries.
	DiagCauseKind0     = DiagCauseKind + ".0"
	DiagCauseGroup0    = DiagCauseGroup + ".0"
	DiagCauseSplit0    = DiagCauseSplit + ".0"
	DiagCauseNodes0    = DiagCauseNodes + ".0"
	DiagCauseNodeList0 = DiagCauseNodeList + ".0"
	DiagCauseSubnet0   = DiagCauseSubnet + ".0"
	DiagCauseLasted0   = DiagCauseLasted + ".0"
)

// The values of diagCauseKind.
const (
	CauseLost        = 1 // the nodes were lost together
	CauseBackDown    = 2 // they came back; they had been down
	CauseBackCut     = 3 // they came back; they had been up, cut off from the sender's side
	CauseBackUnknown = 4 // they came back; the sender did not see them go
)

// Standard objects from SNMPv2-MIB (RFC 3418) that agents and notifications use.
const (
	// SysDescr0 is sysDescr.0.
	SysDescr0 = ".1.3.6.1.2.1.1.1.0"
	// SysObjectID0 is sysObjectID.0.
	SysObjectID0 = ".1.3.6.1.2.1.1.2.0"
	// SysUpTime0 is sysUpTime.0, the first varbind of every SNMPv2 notification.
	SysUpTime0 = ".1.3.6.1.2.1.1.3.0"
	// SysName0 is sysName.0.
	SysName0 = ".1.3.6.1.2.1.1.5.0"
	// SnmpTrapOID0 is snmpTrapOID.0, the second varbind of every SNMPv2 notification.
	SnmpTrapOID0 = ".1.3.6.1.6.3.1.1.4.1.0"
	// SnmpTrapEnterprise0 is snmpTrapEnterprise.0, used when translating SNMPv1 traps.
	SnmpTrapEnterprise0 = ".1.3.6.1.6.3.1.1.4.3.0"
)

// Column numbers of DiagTreeEntry.
const (
	ColNodeID           = 1
	ColNodeAD           = 2
	ColNodeStatus       = 3
	ColNodeEventCounter = 4
	ColNodeTestedOnly   = 5
	ColNodeLastChange   = 6
	ColNodeHowLearned   = 7
	ColNodeAddrType     = 8
	ColNodeAddr         = 9
	ColNodePort         = 10
	ColNodeRowStatus    = 11
	ColNodeFlapping     = 12
	ColNodeMaintUntil   = 13
	ColNodeMaintFor     = 14
	ColNodeMaintStatus  = 15
	ColNodeName         = 16
	ColNodeHost         = 17
	ColNodeCommunity    = 18
	ColNodeCauseGroup   = 19
)

// Column numbers of DiagListEntry.
const (
	ColListChunkIndex = 1
	ColListChunk      = 2
)

// ListChunkSize is the most octets one diagListChunk holds.
const ListChunkSize = 1024

// Column numbers of DiagEventEntry.
const (
	ColEventSeq        = 1
	ColEventNodeID     = 2
	ColEventStatus     = 3
	ColEventPrevStatus = 4
	ColEventCounter    = 5
	ColEventTime       = 6
	ColEventHowLearned = 7
	ColEventDetector   = 8
	ColEventSource     = 9
)

// Column numbers of DiagKeyEntry.
const (
	ColKeyIndex   = 1
	ColKeyPrimary = 2
	ColKeyValue   = 3
)

// Verbs of a DiagKeyChange value's first octet, Consul's keyring verbs.
const (
	KeyInstall = 1
	KeyUse     = 2
	KeyRemove  = 3
)

// TruthValue values (SNMPv2-TC).
const (
	TruthTrue  = 1
	TruthFalse = 2
)

// RowStatus values (SNMPv2-TC) that nodeRowStatus reads or a manager writes.
const (
	RowActive      = 1
	RowCreateAndGo = 4
	RowDestroy     = 6
)

// InetAddressType values (RFC 4001) of nodeAddrType.
const (
	InetIPv4 = 1
	InetIPv6 = 2
)

// NodeADOf is a's nodeAD, the paper's IpAddress column: a itself for IPv4
// (an IPv4-mapped address too), 0.0.0.0 for IPv6, whose address nodeAddr
// carries.
func NodeADOf(a netip.Addr) netip.Addr {
	if a = a.Unmap(); a.Is4() {
		return a
	}
	return netip.IPv4Unspecified()
}

// InetAddress returns a's nodeAddrType and nodeAddr: IPv4 (an IPv4-mapped
// address too) as 4 octets, IPv6 as 16.
func InetAddress(a netip.Addr) (int, []byte) {
	if a = a.Unmap(); a.Is4() {
		b := a.As4()
		return InetIPv4, b[:]
	}
	b := a.As16()
	return InetIPv6, b[:]
}

// Limits from the MIB's SYNTAX clauses.
const (
	// MaxNodeID is the largest NodeID the MIB can index.
	MaxNodeID = 65535
	// MaxFaultInjectSeconds is the largest value diagFaultInject accepts.
	MaxFaultInjectSeconds = 86400
	// MaxClockSkewSeconds bounds diagFaultClockSkew either way.
	MaxClockSkewSeconds = 86400
)

// TreeCell returns the instance OID of column col of the DiagTree row of nodeID.
func TreeCell(col, nodeID int) string {
	return DiagTreeEntry + "." + strconv.Itoa(col) + "." + strconv.Itoa(nodeID)
}

// EventCell returns the instance OID of column col of the event row seq.
func EventCell(col int, seq uint32) string {
	return DiagEventEntry + "." + strconv.Itoa(col) + "." + strconv.FormatUint(uint64(seq), 10)
}
