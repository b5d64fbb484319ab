package snmp

// Roots of the standard groups the responder serves.
const (
	oidSystem       = ".1.3.6.1.2.1.1"      // MIB-II system group (RFC 3418)
	oidSNMP         = ".1.3.6.1.2.1.11"     // SNMP group (RFC 3418)
	oidEngine       = ".1.3.6.1.6.3.10.2.1" // snmpEngine (RFC 3411)
	oidMPDStats     = ".1.3.6.1.6.3.11.2.1" // snmpMPDStats (RFC 3412)
	oidTargetObject = ".1.3.6.1.6.3.12.1"   // snmpTargetObjects (RFC 3413)
	oidUsmStats     = ".1.3.6.1.6.3.15.1.1" // usmStats (RFC 3414)
	sysServices     = 72                    // application (7) and end-to-end (4) layers
	authenTrapsOn   = 1                     // snmpEnableAuthenTraps: enabled(1)
	authenTrapsOff  = 2                     // snmpEnableAuthenTraps: disabled(2)
	oidDiagnosisMIB = ".1.3.6.1.4.1.200"    // sysObjectID: the DIAGNOSIS-MIB root
)

// constant serves a value fixed when the responder is built.
func constant(v value) func(*view) value {
	return func(*view) value { return v }
}

// stdNodes returns the MIB-II system group, the SNMP group and the SNMPv3
// engine, MPD, target and USM statistics objects.
func stdNodes(r *Responder) []node {
	sys := mustOID(oidSystem)
	nodes := []node{
		newScalar(sys.Child(1), constant(str(r.cfg.SysDescr))),
		newScalar(sys.Child(2), constant(objectID(mustOID(oidDiagnosisMIB)))),
		newScalar(sys.Child(3), func(v *view) value { return ticks(r.upTime(v.now)) }),
		newScalar(sys.Child(4), constant(str(r.cfg.SysContact))),
		newScalar(sys.Child(5), constant(str(r.cfg.SysName))),
		newScalar(sys.Child(6), constant(str(r.cfg.SysLocation))),
		newScalar(sys.Child(7), constant(integer(sysServices))),
		newScalar(sys.Child(8), constant(ticks(0))),
	}
	snmp := mustOID(oidSNMP)
	for sub, c := range map[uint32]counter{
		1: cInPkts, 2: cOutPkts, 3: cInBadVersions, 4: cInBadCommunityNames,
		5: cInBadCommunityUses, 6: cInASNParseErrs, 13: cInTotalReqVars,
		14: cInTotalSetVars, 15: cInGetRequests, 16: cInGetNexts, 17: cInSetRequests,
		20: cOutTooBigs, 21: cOutNoSuchNames, 22: cOutBadValues, 24: cOutGenErrs,
		28: cOutGetResponses, 31: cSilentDrops,
	} {
		nodes = append(nodes, counterScalar(r, snmp.Child(sub), c))
	}
	nodes = append(nodes,
		newScalar(snmp.Child(30), constant(integer(authenTraps(r.cfg.OnAuthFailure != nil)))),
		newScalar(snmp.Child(32), constant(counter32(0))), // snmpProxyDrops: no proxy
	)
	return append(nodes, v3Nodes(r)...)
}

// v3Nodes returns the snmpEngine group and the SNMPv3 statistics counters.
func v3Nodes(r *Responder) []node {
	eng := mustOID(oidEngine)
	nodes := []node{
		newScalar(eng.Child(1), constant(octets(r.engineID))),
		newScalar(eng.Child(2), constant(integer(int(r.cfg.EngineBoots)))),
		newScalar(eng.Child(3), func(v *view) value { return integer(int(r.engineTime(v.now))) }),
		newScalar(eng.Child(4), constant(integer(r.cfg.MaxMessageSize))),
		newScalar(mustOID(oidTargetObject).Child(4), constant(counter32(0))), // snmpUnavailableContexts
		counterScalar(r, mustOID(oidTargetObject).Child(5), cUnknownContexts),
	}
	mpd := mustOID(oidMPDStats)
	for sub, c := range []counter{cUnknownSecurityModels, cInvalidMsgs, cUnknownPDUHandlers} {
		nodes = append(nodes, counterScalar(r, mpd.Child(uint32(sub+1)), c))
	}
	usm := mustOID(oidUsmStats)
	for sub, c := range []counter{cUnsupportedSecLevels, cNotInTimeWindows, cUnknownUserNames,
		cUnknownEngineIDs, cWrongDigests, cDecryptionErrors} {
		nodes = append(nodes, counterScalar(r, usm.Child(uint32(sub+1)), c))
	}
	return nodes
}

// counterScalar serves one of the responder's counters as a Counter32.
func counterScalar(r *Responder, oid OID, c counter) *scalar {
	return newScalar(oid, func(*view) value { return counter32(r.stats.get(c)) })
}

// authenTraps is snmpEnableAuthenTraps for whether they are sent.
func authenTraps(on bool) int {
	if on {
		return authenTrapsOn
	}
	return authenTrapsOff
}
