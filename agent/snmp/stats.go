package snmp

import "sync/atomic"

// counter names one of the responder's statistics.
type counter int

// The counters; the comment names the MIB object that serves each, if any.
const (
	cInPkts                counter = iota // snmpInPkts
	cOutPkts                              // snmpOutPkts
	cInBadVersions                        // snmpInBadVersions
	cInBadCommunityNames                  // snmpInBadCommunityNames
	cInBadCommunityUses                   // snmpInBadCommunityUses
	cInASNParseErrs                       // snmpInASNParseErrs
	cSilentDrops                          // snmpSilentDrops
	cInTotalReqVars                       // snmpInTotalReqVars
	cInTotalSetVars                       // snmpInTotalSetVars
	cInGetRequests                        // snmpInGetRequests
	cInGetNexts                           // snmpInGetNexts
	cInSetRequests                        // snmpInSetRequests
	cInGetBulks                           // (no object)
	cOutTooBigs                           // snmpOutTooBigs
	cOutNoSuchNames                       // snmpOutNoSuchNames
	cOutBadValues                         // snmpOutBadValues
	cOutGenErrs                           // snmpOutGenErrs
	cOutGetResponses                      // snmpOutGetResponses
	cOutReports                           // (no object)
	cUnknownSecurityModels                // snmpUnknownSecurityModels
	cInvalidMsgs                          // snmpInvalidMsgs
	cUnknownPDUHandlers                   // snmpUnknownPDUHandlers
	cUnknownContexts                      // snmpUnknownContexts
	cUnsupportedSecLevels                 // usmStatsUnsupportedSecLevels
	cNotInTimeWindows                     // usmStatsNotInTimeWindows
	cUnknownUserNames                     // usmStatsUnknownUserNames
	cUnknownEngineIDs                     // usmStatsUnknownEngineIDs
	cWrongDigests                         // usmStatsWrongDigests
	cDecryptionErrors                     // usmStatsDecryptionErrors
	cOversized                            // (no object) datagrams over MaxMessageSize
	cFaultDrops                           // (no object) requests dropped by fault injection
	cPanics                               // (no object) handler panics recovered
	cAgentsOnly                           // (no object) SETs only agents make (push, node list), without the cluster key
	nCounters
)

// counters is the responder's set of atomic statistics.
type counters [nCounters]atomic.Uint64

// inc adds one to c.
func (cs *counters) inc(c counter) uint64 { return cs[c].Add(1) }

// add adds n to c.
func (cs *counters) add(c counter, n int) { cs[c].Add(uint64(n)) }

// get reads c.
func (cs *counters) get(c counter) uint64 { return cs[c].Load() }

// Stats is a copy of the responder's counters, for metrics and tests.
type Stats struct {
	InPkts, OutPkts                         uint64
	InBadVersions                           uint64
	InBadCommunityNames, InBadCommunityUses uint64
	// InASNParseErrs counts malformed and truncated datagrams (and v1 GETBULK).
	InASNParseErrs uint64
	// SilentDrops counts responses too big to send even as tooBig.
	SilentDrops                            uint64
	InGetRequests, InGetNexts, InGetBulks  uint64
	InSetRequests                          uint64
	InTotalReqVars, InTotalSetVars         uint64
	OutTooBigs, OutGenErrs, OutReports     uint64
	OutNoSuchNames, OutBadValues           uint64
	OutGetResponses                        uint64
	UnknownSecurityModels, InvalidMsgs     uint64
	UnknownPDUHandlers, UnknownContexts    uint64
	UnsupportedSecLevels, NotInTimeWindows uint64
	UnknownUserNames, UnknownEngineIDs     uint64
	WrongDigests, DecryptionErrors         uint64
	// Oversized counts datagrams longer than MaxMessageSize, dropped unread.
	Oversized uint64
	// FaultDrops counts requests dropped while fault injection silences the agent.
	FaultDrops uint64
	// Panics counts requests whose handling panicked and was recovered.
	Panics uint64
	// AgentsOnly counts SETs only agents make (diagPush, diagTree rows) made
	// without the cluster key while the responder serves cluster users.
	AgentsOnly uint64
	// EngineBoots is the snmpEngineBoots served; LatchedBoots means every
	// authenticated SNMPv3 request is refused (boots could not be kept).
	EngineBoots uint32
}

// snapshot copies the counters into a Stats value.
func (cs *counters) snapshot() Stats {
	return Stats{
		InPkts: cs.get(cInPkts), OutPkts: cs.get(cOutPkts),
		InBadVersions:       cs.get(cInBadVersions),
		InBadCommunityNames: cs.get(cInBadCommunityNames), InBadCommunityUses: cs.get(cInBadCommunityUses),
		InASNParseErrs: cs.get(cInASNParseErrs), SilentDrops: cs.get(cSilentDrops),
		InGetRequests: cs.get(cInGetRequests), InGetNexts: cs.get(cInGetNexts), InGetBulks: cs.get(cInGetBulks),
		InSetRequests:  cs.get(cInSetRequests),
		InTotalReqVars: cs.get(cInTotalReqVars), InTotalSetVars: cs.get(cInTotalSetVars),
		OutNoSuchNames: cs.get(cOutNoSuchNames), OutBadValues: cs.get(cOutBadValues),
		OutGetResponses: cs.get(cOutGetResponses),
		OutTooBigs:      cs.get(cOutTooBigs), OutGenErrs: cs.get(cOutGenErrs), OutReports: cs.get(cOutReports),
		UnknownSecurityModels: cs.get(cUnknownSecurityModels), InvalidMsgs: cs.get(cInvalidMsgs),
		UnknownPDUHandlers: cs.get(cUnknownPDUHandlers), UnknownContexts: cs.get(cUnknownContexts),
		UnsupportedSecLevels: cs.get(cUnsupportedSecLevels), NotInTimeWindows: cs.get(cNotInTimeWindows),
		UnknownUserNames: cs.get(cUnknownUserNames), UnknownEngineIDs: cs.get(cUnknownEngineIDs),
		WrongDigests: cs.get(cWrongDigests), DecryptionErrors: cs.get(cDecryptionErrors),
		Oversized: cs.get(cOversized), FaultDrops: cs.get(cFaultDrops), Panics: cs.get(cPanics),
		AgentsOnly: cs.get(cAgentsOnly),
	}
}
