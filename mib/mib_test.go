package mib

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
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
	"isTestedOnly":           IsTestedOnly,
	"nmsID":                  NMSID,
	"hiADSDisUP":             HiADSDisUP,
	"nmsIDCounter":           NMSIDCounter,
	"diagFaultInject":        DiagFaultInject,
	"diagLastEventSeq":       DiagLastEventSeq,
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
	"diagNotifications":      DiagNotifications,
	"diagNotificationPrefix": DiagNotificationPrefix,
	"diagNodeStatusChange":   DiagNodeStatusChange,
	"diagNMSChange":          DiagNMSChange,
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

func TestSmilintIsSilent(t *testing.T) {
	files := []string{"DIAGNOSIS-MIB.txt"}
	for _, m := range []string{"SNMPv2-SMI", "SNMPv2-TC", "SNMPv2-CONF", "SNMPv2-MIB"} {
		files = append(files, filepath.Join("ietf", m+".txt"))
	}
	for _, f := range files {
		out := run(t, []string{"SMIPATH=" + SMIPath(dir(t))}, "smilint", "-l", "3", f)
		if out != "" {
			t.Errorf("smilint -l 3 %s printed:\n%s", f, out)
		}
	}
}

func TestObjectConstantsMatchMIB(t *testing.T) {
	names := make([]string, 0, len(objects))
	for name := range objects {
		names = append(names, "DIAGNOSIS-MIB::"+name)
	}
	slices.Sort(names)
	got := translate(t, nil, names)
	for i, name := range names {
		if want := objects[strings.TrimPrefix(name, "DIAGNOSIS-MIB::")]; got[i] != want {
			t.Errorf("%s: snmptranslate says %s, Go constant is %s", name, got[i], want)
		}
	}
}

func TestInstanceConstantsMatchMIB(t *testing.T) {
	names := make([]string, 0, len(instances))
	for name := range instances {
		names = append(names, name)
	}
	slices.Sort(names)
	got := translate(t, nil, names)
	for i, name := range names {
		if got[i] != instances[name] {
			t.Errorf("%s: snmptranslate says %s, Go side says %s", name, got[i], instances[name])
		}
	}
}

func TestRandomAccessLookup(t *testing.T) {
	names := []string{"nmsID.0", "hiADSDisUP.0", "isTestedOnly.0", "diagFaultInject.0", "nodeStatus.3"}
	want := []string{NMSID0, HiADSDisUP0, IsTestedOnly0, DiagFaultInject0, TreeCell(ColNodeStatus, 3)}
	got := translate(t, []string{"-IR"}, names)
	if !slices.Equal(got, want) {
		t.Errorf("snmptranslate -IR -On %v = %v, want %v", names, got, want)
	}
}

// TestEveryMIBNodeHasConstant lists the module's whole subtree so a node added to
// the MIB without a Go constant (or the reverse) fails.
func TestEveryMIBNodeHasConstant(t *testing.T) {
	out := run(t, nil, "snmptranslate", append(NetSNMPArgs(dir(t)), "-Tz")...)
	line := regexp.MustCompile(`^"([^"]+)"\s+"(1\.3\.6\.1\.4\.1\.200(\.[0-9]+)*)"$`)
	seen := map[string]bool{}
	for _, l := range strings.Split(out, "\n") {
		m := line.FindStringSubmatch(strings.TrimSpace(l))
		if m == nil {
			continue
		}
		seen[m[1]] = true
		if want, ok := objects[m[1]]; !ok {
			t.Errorf("MIB node %s (%s) has no Go constant", m[1], m[2])
		} else if "."+m[2] != want {
			t.Errorf("MIB node %s is .%s, Go constant is %s", m[1], m[2], want)
		}
	}
	for name := range objects {
		if !seen[name] {
			t.Errorf("Go constant for %s has no node in the MIB", name)
		}
	}
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

func TestEnumerationsMatchGo(t *testing.T) {
	var status []string
	for s := StatusFaultFree; s.Valid(); s++ {
		status = append(status, s.String()+"("+string(rune('0'+s))+")")
	}
	for _, obj := range []string{"nodeStatus", "diagEventStatus", "diagEventPrevStatus"} {
		if got, want := enumOf(t, obj), strings.Join(status, ","); got != want {
			t.Errorf("%s enumeration %q, Go Status gives %q", obj, got, want)
		}
	}
	sources := []string{SourceNone.String() + "(0)", SourceDirect.String() + "(1)", SourceLearned.String() + "(2)"}
	if got, want := enumOf(t, "nodeHowLearned"), strings.Join(sources, ","); got != want {
		t.Errorf("nodeHowLearned enumeration %q, Go Source gives %q", got, want)
	}
	if got, want := enumOf(t, "diagEventHowLearned"), strings.Join(sources[1:], ","); got != want {
		t.Errorf("diagEventHowLearned enumeration %q, Go Source gives %q", got, want)
	}
	if got, want := enumOf(t, "nodeTestedOnly"), "true(1),false(2)"; got != want || TruthTrue != 1 || TruthFalse != 2 {
		t.Errorf("nodeTestedOnly enumeration %q, want %q matching TruthTrue/TruthFalse", got, want)
	}
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

// TestTreeAccess checks the access of every object in the -Tp tree: only nmsID
// and diagFaultInject are writable and the event index is not readable.
func TestTreeAccess(t *testing.T) {
	out := run(t, nil, "snmptranslate", append(NetSNMPArgs(dir(t)), "-Tp", DiagnosisMIB)...)
	leaf := regexp.MustCompile(`\+-- (-R--|-RW-|----) \S+\s+(\w+)\(\d+\)`)
	got := map[string]string{}
	for _, m := range leaf.FindAllStringSubmatch(out, -1) {
		got[m[2]] = m[1]
	}
	want := map[string]string{"nmsID": "-RW-", "diagFaultInject": "-RW-", "diagEventSeq": "----"}
	columnsAndScalars := 0
	for name, oid := range objects {
		if !strings.HasPrefix(oid, HiADSDGroup+".") || name == "diagTree" || name == "diagTreeEntry" ||
			name == "diagEventTable" || name == "diagEventEntry" {
			continue
		}
		columnsAndScalars++
		access, ok := want[name]
		if !ok {
			access = "-R--"
		}
		if got[name] != access {
			t.Errorf("%s: snmptranslate -Tp shows access %q, want %q", name, got[name], access)
		}
	}
	if len(got) != columnsAndScalars {
		t.Errorf("-Tp shows %d leaf objects, the Go constants have %d:\n%s", len(got), columnsAndScalars, out)
	}
}
