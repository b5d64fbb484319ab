package mib

import (
	"bytes"
	"net/netip"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// objects maps every descriptor of DIAGNOSIS-MIB to the Go constant for it.
var objects = map[string]string{
	"diagnosisMIB":           DiagnosisMIB,
	"hiADSDGroup":            HiADSDGroup,
	"diagTree":               DiagTree,
	"diagTreeEntry":          DiagTreeEntry,
	"nodeID":                 NodeID,
	"nodeAD":                 NodeAD,
	"nodeStatus":             NodeStatus,
	"nodeEventCounter":       NodeEventCounter,
	"nodeTestedOnly":         NodeTestedOnly,
	"nodeLastChange":         NodeLastChange,
	"nodeHowLearned":         NodeHowLearned,
	"nodeAddrType":           NodeAddrType,
	"nodeAddr":               NodeAddr,
	"nodePort":               NodePort,
	"nodeRowStatus":          NodeRowStatus,
	"isTestedOnly":           IsTestedOnly,
	"nmsID":                  NMSID,
	"hiADSDisUP":             HiADSDisUP,
	"nmsIDCounter":           NMSIDCounter,
	"diagFaultInject":        DiagFaultInject,
	"diagLastEventSeq":       DiagLastEventSeq,
	"diagNodeListHash":       DiagNodeListHash,
	"diagNodeListVersion":    DiagNodeListVersion,
	"diagNodeListIDs":        DiagNodeListIDs,
	"diagViewDigest":         DiagViewDigest,
	"diagPush":               DiagPush,
	"diagEventTable":         DiagEventTable,
	"diagEventEntry":         DiagEventEntry,
	"diagEventSeq":           DiagEventSeq,
	"diagEventNodeID":        DiagEventNodeID,
	"diagEventStatus":        DiagEventStatus,
	"diagEventPrevStatus":    DiagEventPrevStatus,
	"diagEventCounter":       DiagEventCounter,
	"diagEventTime":          DiagEventTime,
	"diagEventHowLearned":    DiagEventHowLearned,
	"diagEventDetector":      DiagEventDetector,
	"diagEventSource":        DiagEventSource,
	"diagNotifications":      DiagNotifications,
	"diagNotificationPrefix": DiagNotificationPrefix,
	"diagNodeStatusChange":   DiagNodeStatusChange,
	"diagNMSChange":          DiagNMSChange,
	"diagNodeListMismatch":   DiagNodeListMismatch,
	"diagNodeListChange":     DiagNodeListChange,
	"diagConformance":        DiagConformance,
	"diagCompliances":        DiagCompliances,
	"diagGroups":             DiagGroups,
	"diagCompliance":         DiagCompliance,
	"diagPaperGroup":         DiagPaperGroup,
	"diagExtensionGroup":     DiagExtensionGroup,
	"diagNotificationGroup":  DiagNotificationGroup,
}

// instances maps fully qualified instance names to the Go constant or helper result.
var instances = map[string]string{
	"DIAGNOSIS-MIB::isTestedOnly.0":               IsTestedOnly0,
	"DIAGNOSIS-MIB::nmsID.0":                      NMSID0,
	"DIAGNOSIS-MIB::hiADSDisUP.0":                 HiADSDisUP0,
	"DIAGNOSIS-MIB::nmsIDCounter.0":               NMSIDCounter0,
	"DIAGNOSIS-MIB::diagFaultInject.0":            DiagFaultInject0,
	"DIAGNOSIS-MIB::diagLastEventSeq.0":           DiagLastEventSeq0,
	"DIAGNOSIS-MIB::nodeID.7":                     TreeCell(ColNodeID, 7),
	"DIAGNOSIS-MIB::nodeAD.7":                     TreeCell(ColNodeAD, 7),
	"DIAGNOSIS-MIB::nodeStatus.7":                 TreeCell(ColNodeStatus, 7),
	"DIAGNOSIS-MIB::nodeEventCounter.7":           TreeCell(ColNodeEventCounter, 7),
	"DIAGNOSIS-MIB::nodeTestedOnly.7":             TreeCell(ColNodeTestedOnly, 7),
	"DIAGNOSIS-MIB::nodeLastChange.7":             TreeCell(ColNodeLastChange, 7),
	"DIAGNOSIS-MIB::nodeHowLearned.65535":         TreeCell(ColNodeHowLearned, MaxNodeID),
	"DIAGNOSIS-MIB::diagEventSeq.42":              EventCell(ColEventSeq, 42),
	"DIAGNOSIS-MIB::diagEventNodeID.42":           EventCell(ColEventNodeID, 42),
	"DIAGNOSIS-MIB::diagEventStatus.42":           EventCell(ColEventStatus, 42),
	"DIAGNOSIS-MIB::diagEventPrevStatus.42":       EventCell(ColEventPrevStatus, 42),
	"DIAGNOSIS-MIB::diagEventCounter.42":          EventCell(ColEventCounter, 42),
	"DIAGNOSIS-MIB::diagEventTime.42":             EventCell(ColEventTime, 42),
	"DIAGNOSIS-MIB::diagEventHowLearned.42":       EventCell(ColEventHowLearned, 42),
	"DIAGNOSIS-MIB::diagEventDetector.4294967295": EventCell(ColEventDetector, 4294967295),
	"SNMPv2-MIB::sysDescr.0":                      SysDescr0,
	"SNMPv2-MIB::sysObjectID.0":                   SysObjectID0,
	"SNMPv2-MIB::sysUpTime.0":                     SysUpTime0,
	"SNMPv2-MIB::sysName.0":                       SysName0,
	"SNMPv2-MIB::snmpTrapOID.0":                   SnmpTrapOID0,
	"SNMPv2-MIB::snmpTrapEnterprise.0":            SnmpTrapEnterprise0,
}

// tool returns the path of a command the tests drive, failing when it is missing.
func tool(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Fatalf("%s not found (%v): run scripts/test-deps.sh to install the test dependencies", name, err)
	}
	return path
}

// dir returns the absolute path of this package's directory.
func dir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs(".")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// run executes a command and returns its stdout, failing on any error or stderr output.
func run(t *testing.T, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(tool(t, name), args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("%s %s: %v\nstderr: %s\nstdout: %s", name, strings.Join(args, " "), err, stderr.String(), stdout.String())
	}
	return stdout.String()
}

// translate runs snmptranslate -On on names and returns one OID per name.
func translate(t *testing.T, opts []string, names []string) []string {
	t.Helper()
	args := append(NetSNMPArgs(dir(t)), opts...)
	args = append(append(args, "-On"), names...)
	out := strings.Fields(run(t, nil, "snmptranslate", args...))
	if len(out) != len(names) {
		t.Fatalf("snmptranslate gave %d OIDs for %d names: %q", len(out), len(names), out)
	}
	return out
}

// enumOf returns the named numbers of an object's SYNTAX as snmptranslate -Td shows them.
func enumOf(t *testing.T, name string) string {
	t.Helper()
	out := run(t, nil, "snmptranslate", append(NetSNMPArgs(dir(t)), "-Td", "DIAGNOSIS-MIB::"+name)...)
	m := regexp.MustCompile(`SYNTAX\s+INTEGER\s*\{([^}]*)\}`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no enumeration in the definition of %s:\n%s", name, out)
	}
	return strings.ReplaceAll(m[1], " ", "")
}

func TestEmbeddedTextIsTheFile(t *testing.T) {
	disk, err := os.ReadFile(FileName)
	if err != nil {
		t.Fatal(err)
	}
	if Text() != string(disk) {
		t.Error("Text() differs from DIAGNOSIS-MIB.txt on disk")
	}
	if !strings.HasPrefix(Text(), ModuleName+" DEFINITIONS ::= BEGIN") {
		t.Errorf("Text() does not start with the %s header", ModuleName)
	}
	for _, f := range []string{FileName, "ietf/SNMPv2-SMI.txt", "ietf/SNMPv2-TC.txt", "ietf/SNMPv2-CONF.txt", "ietf/SNMPv2-MIB.txt"} {
		if _, err := Files().Open(f); err != nil {
			t.Errorf("Files() lacks %s: %v", f, err)
		}
	}
}

func TestStatusStrings(t *testing.T) {
	if StatusUnknown.String() != "unknown" || Status(9).String() != "Status(9)" || Status(9).Valid() {
		t.Errorf("Status strings: %s %s valid(9)=%v", StatusUnknown, Status(9), Status(9).Valid())
	}
	if SourceLearned.String() != "learned" || Source(7).String() != "Source(7)" {
		t.Errorf("Source strings: %s %s", SourceLearned, Source(7))
	}
}

// TestFetchDigest: the digest changes with every object a fetch reads (the
// station, its counter, the list's fingerprint and version, each row's
// status and counter, a row more) and with nothing else (how a row was
// learned, when it changed, the events, hiADSDisUP).
func TestFetchDigest(t *testing.T) {
	base := func() *Snapshot {
		s := &Snapshot{Up: true, NMS: netip.MustParseAddr("192.0.2.1"), NMSCounter: 2, NodeListHash: []byte{1, 2, 3, 4, 5, 6, 7, 8}, ListVersion: 1}
		for id := uint32(1); id <= 4; id++ {
			s.Nodes = append(s.Nodes, NodeRow{ID: id, Status: StatusFaultFree, Counter: id})
		}
		return s
	}
	want := base().FetchDigest()
	if want == 0 {
		t.Fatal("digest 0, which a tester reads as none")
	}
	changes := map[string]func(*Snapshot){
		"station":     func(s *Snapshot) { s.NMS = netip.MustParseAddr("192.0.2.2") },
		"its counter": func(s *Snapshot) { s.NMSCounter++ },
		"list hash":   func(s *Snapshot) { s.NodeListHash = []byte{1, 2, 3, 4, 5, 6, 7, 9} },
		"version":     func(s *Snapshot) { s.ListVersion++ },
		"a status":    func(s *Snapshot) { s.Nodes[2].Status = StatusPartial },
		"a counter":   func(s *Snapshot) { s.Nodes[3].Counter++ },
		"a row more":  func(s *Snapshot) { s.Nodes = append(s.Nodes, NodeRow{ID: 5}) },
	}
	for name, change := range changes {
		s := base()
		change(s)
		if s.FetchDigest() == want {
			t.Errorf("%s changed, the digest did not", name)
		}
	}
	same := map[string]func(*Snapshot){
		"how learned": func(s *Snapshot) { s.Nodes[1].How = SourceDirect },
		"last change": func(s *Snapshot) { s.Nodes[1].LastChange = 99 },
		"an event":    func(s *Snapshot) { s.Events = append(s.Events, Event{Seq: 1}) },
		"up":          func(s *Snapshot) { s.Up = false },
	}
	for name, change := range same {
		s := base()
		change(s)
		if s.FetchDigest() != want {
			t.Errorf("%s changed the digest; a fetch does not read it", name)
		}
	}
}
