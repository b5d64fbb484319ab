package mib

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

// instances maps fully qualified instance names to the Go constant or helper result.
var instances = map[string]string{
	"DIAGNOSIS-MIB::isTestedOnly.0":               IsTestedOnly0,
	"DIAGNOSIS-MIB::nmsID.0":                      NMSID0,
	"DIAGNOSIS-MIB::hiADSDisUP.0":                 HiADSDisUP0,
	"DIAGNOSIS-MIB::nmsIDCounter.0":               NMSIDCounter0,
	"DIAGNOSIS-MIB::diagFaultInject.0":            DiagFaultInject0,
	"DIAGNOSIS-MIB::diagLastEventSeq.0":           DiagLastEventSeq0,
	"DIAGNOSIS-MIB::diagKeyChange.0":              DiagKeyChange0,
	"DIAGNOSIS-MIB::diagHello.0":                  DiagHello0,
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

// TestDiagStatus checks the MIB's numbering of the core's statuses both ways.
func TestDiagStatus(t *testing.T) {
	want := map[hiadsd.Status]int{hiadsd.FaultFree: 0, hiadsd.Faulty: 1, hiadsd.Partial: 2, hiadsd.Unknown: 3, hiadsd.Degraded: 4}
	for st, v := range want {
		if got := DiagStatus(st); got != v {
			t.Errorf("DiagStatus(%v) = %d, want %d", st, got, v)
		}
		if back, err := StatusOf(v); err != nil || back != st {
			t.Errorf("StatusOf(%d) = %v, %v; want %v", v, back, err, st)
		}
	}
	if _, err := StatusOf(5); !errors.Is(err, hiadsd.ErrBadStatus) {
		t.Errorf("StatusOf(5) error = %v, want ErrBadStatus", err)
	}
	if DiagStatusLabel(hiadsd.Unknown) != "unknown" || DiagStatusLabel(hiadsd.FaultFree) != "faultFree" {
		t.Errorf("labels: %s %s", DiagStatusLabel(hiadsd.Unknown), DiagStatusLabel(hiadsd.FaultFree))
	}
	if SourceLearned.String() != "learned" || Source(7).String() != "Source(7)" {
		t.Errorf("Source strings: %s %s", SourceLearned, Source(7))
	}
}

// TestName: an instance is named by the object it belongs to, the longest
// match, with its index; the SNMPv2-MIB objects of a notification too.
func TestName(t *testing.T) {
	for oid, want := range map[string]string{
		DiagEventNodeID + ".8":       "diagEventNodeID.8",
		NodeStatus + ".12":           "nodeStatus.12",
		DiagNodeListConflict:         "diagNodeListConflict",
		SnmpTrapOID0:                 "snmpTrapOID.0",
		".1.3.6.1.4.1.9999.1":        ".1.3.6.1.4.1.9999.1",
		DiagnosisMIB + ".1.1.1.99.3": "diagTreeEntry.99.3",
	} {
		if got := Name(oid); got != want {
			t.Errorf("Name(%s) = %q, want %q", oid, got, want)
		}
	}
}
