package mib

import "strings"

// Objects maps every descriptor of DIAGNOSIS-MIB to its object identifier
// (the constants above); the tests hold it against the module through
// snmptranslate.
var Objects = map[string]string{
	"diagnosisMIB":             DiagnosisMIB,
	"hiADSDGroup":              HiADSDGroup,
	"diagTree":                 DiagTree,
	"diagTreeEntry":            DiagTreeEntry,
	"nodeID":                   NodeID,
	"nodeAD":                   NodeAD,
	"nodeStatus":               NodeStatus,
	"nodeEventCounter":         NodeEventCounter,
	"nodeTestedOnly":           NodeTestedOnly,
	"nodeLastChange":           NodeLastChange,
	"nodeHowLearned":           NodeHowLearned,
	"nodeAddrType":             NodeAddrType,
	"nodeAddr":                 NodeAddr,
	"nodePort":                 NodePort,
	"nodeRowStatus":            NodeRowStatus,
	"nodeFlapping":             NodeFlapping,
	"nodeMaintenanceUntil":     NodeMaintenanceUntil,
	"nodeMaintenanceFor":       NodeMaintenanceFor,
	"nodeMaintenanceStatus":    NodeMaintenanceStatus,
	"nodeName":                 NodeName,
	"nodeHost":                 NodeHost,
	"nodeCommunity":            NodeCommunity,
	"nodeCauseGroup":           NodeCauseGroup,
	"diagNodeNextID":           DiagNodeNextID,
	"diagListTable":            DiagListTable,
	"diagListEntry":            DiagListEntry,
	"diagListChunkIndex":       DiagListChunkIndex,
	"diagListChunk":            DiagListChunk,
	"diagConflict":             DiagConflict,
	"diagConflictNode":         DiagConflictNode,
	"diagConflictWinner":       DiagConflictWinner,
	"diagConflictReason":       DiagConflictReason,
	"diagNodeListConflict":     DiagNodeListConflict,
	"diagCause":                DiagCause,
	"diagCauseKind":            DiagCauseKind,
	"diagCauseGroup":           DiagCauseGroup,
	"diagCauseSplit":           DiagCauseSplit,
	"diagCauseNodes":           DiagCauseNodes,
	"diagCauseNodeList":        DiagCauseNodeList,
	"diagCauseSubnet":          DiagCauseSubnet,
	"diagCauseLasted":          DiagCauseLasted,
	"diagCauseChange":          DiagCauseChange,
	"isTestedOnly":             IsTestedOnly,
	"nmsID":                    NMSID,
	"hiADSDisUP":               HiADSDisUP,
	"nmsIDCounter":             NMSIDCounter,
	"diagFaultInject":          DiagFaultInject,
	"diagFaultClockSkew":       DiagFaultClockSkew,
	"diagLastEventSeq":         DiagLastEventSeq,
	"diagNodeListHash":         DiagNodeListHash,
	"diagNodeListVersion":      DiagNodeListVersion,
	"diagNodeListIDs":          DiagNodeListIDs,
	"diagViewDigest":           DiagViewDigest,
	"diagPush":                 DiagPush,
	"diagVantage":              DiagVantage,
	"diagSelfDoubt":            DiagSelfDoubt,
	"diagUnreached":            DiagUnreached,
	"diagListStable":           DiagListStable,
	"diagListDeltaTable":       DiagListDeltaTable,
	"diagListDeltaEntry":       DiagListDeltaEntry,
	"diagListDeltaSince":       DiagListDeltaSince,
	"diagListDeltaChunkIndex":  DiagListDeltaChunkIndex,
	"diagListDeltaChunk":       DiagListDeltaChunk,
	"diagKeyChange":            DiagKeyChange,
	"diagHello":                DiagHello,
	"diagKeyTable":             DiagKeyTable,
	"diagKeyEntry":             DiagKeyEntry,
	"diagKeyIndex":             DiagKeyIndex,
	"diagKeyPrimary":           DiagKeyPrimary,
	"diagKeyValue":             DiagKeyValue,
	"diagEventTable":           DiagEventTable,
	"diagEventEntry":           DiagEventEntry,
	"diagEventSeq":             DiagEventSeq,
	"diagEventNodeID":          DiagEventNodeID,
	"diagEventStatus":          DiagEventStatus,
	"diagEventPrevStatus":      DiagEventPrevStatus,
	"diagEventCounter":         DiagEventCounter,
	"diagEventTime":            DiagEventTime,
	"diagEventHowLearned":      DiagEventHowLearned,
	"diagEventDetector":        DiagEventDetector,
	"diagEventSource":          DiagEventSource,
	"diagNotifications":        DiagNotifications,
	"diagNotificationPrefix":   DiagNotificationPrefix,
	"diagNodeStatusChange":     DiagNodeStatusChange,
	"diagNMSChange":            DiagNMSChange,
	"diagNodeListMismatch":     DiagNodeListMismatch,
	"diagNodeListChange":       DiagNodeListChange,
	"diagNodeKeyRefused":       DiagNodeKeyRefused,
	"diagNodeFlapping":         DiagNodeFlapping,
	"diagNodeMaintenanceEnded": DiagNodeMaintenanceEnded,
	"diagConformance":          DiagConformance,
	"diagCompliances":          DiagCompliances,
	"diagGroups":               DiagGroups,
	"diagCompliance":           DiagCompliance,
	"diagPaperGroup":           DiagPaperGroup,
	"diagExtensionGroup":       DiagExtensionGroup,
	"diagNotificationGroup":    DiagNotificationGroup,
}

// standard names the SNMPv2-MIB objects a notification carries.
var standard = map[string]string{SysUpTime0[:len(SysUpTime0)-2]: "sysUpTime", SnmpTrapOID0[:len(SnmpTrapOID0)-2]: "snmpTrapOID",
	SnmpTrapEnterprise0[:len(SnmpTrapEnterprise0)-2]: "snmpTrapEnterprise", ColdStart: "coldStart", AuthenticationFailure: "authenticationFailure"}

// Name returns oid (dotted, with a leading dot) by the name of the object
// it is an instance of, and the instance: "diagEventNodeID.8" for
// .1.3.6.1.4.1.200.1.8.1.2.8; an oid outside the objects named is given
// back as it is.
func Name(oid string) string {
	best, name := "", ""
	try := func(n, o string) {
		if len(o) > len(best) && (oid == o || strings.HasPrefix(oid, o+".")) {
			best, name = o, n
		}
	}
	for n, o := range Objects {
		try(n, o)
	}
	for o, n := range standard {
		try(n, o)
	}
	if name == "" {
		return oid
	}
	return name + oid[len(best):]
}
