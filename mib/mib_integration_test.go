//go:build integration && linux

package mib

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

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
	names := make([]string, 0, len(Objects))
	for name := range Objects {
		names = append(names, "DIAGNOSIS-MIB::"+name)
	}
	slices.Sort(names)
	got := translate(t, nil, names)
	for i, name := range names {
		if want := Objects[strings.TrimPrefix(name, "DIAGNOSIS-MIB::")]; got[i] != want {
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
		if want, ok := Objects[m[1]]; !ok {
			t.Errorf("MIB node %s (%s) has no Go constant", m[1], m[2])
		} else if "."+m[2] != want {
			t.Errorf("MIB node %s is .%s, Go constant is %s", m[1], m[2], want)
		}
	}
	for name := range Objects {
		if !seen[name] {
			t.Errorf("Go constant for %s has no node in the MIB", name)
		}
	}
}

func TestEnumerationsMatchGo(t *testing.T) {
	var status []string
	for v := range 5 {
		s, err := StatusOf(v)
		if err != nil || DiagStatus(s) != v {
			t.Fatalf("StatusOf(%d) = %v, %v; DiagStatus gives it back as %d", v, s, err, DiagStatus(s))
		}
		status = append(status, DiagStatusLabel(s)+"("+string(rune('0'+v))+")")
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

// TestTreeAccess checks the access of every object in the -Tp tree: only nmsID,
// diagFaultInject, diagFaultClockSkew, diagPush, diagKeyChange, diagHello and diagVantage are writable, the
// columns a manager creates a diagTree row with are read-create, the event,
// key, list and delta indexes are not readable, and what diagNodeListConflict
// and diagCauseChange carry is accessible for notifications only.
func TestTreeAccess(t *testing.T) {
	out := run(t, nil, "snmptranslate", append(NetSNMPArgs(dir(t)), "-Tp", DiagnosisMIB)...)
	leaf := regexp.MustCompile(`\+-- (-R--|-RW-|CR--|----|---N) \S+\s+(\w+)\(\d+\)`)
	got := map[string]string{}
	for _, m := range leaf.FindAllStringSubmatch(out, -1) {
		got[m[2]] = m[1]
	}
	want := map[string]string{"nmsID": "-RW-", "diagFaultInject": "-RW-", "diagFaultClockSkew": "-RW-", "diagPush": "-RW-", "diagKeyChange": "-RW-", "diagHello": "-RW-", "diagVantage": "-RW-", "diagEventSeq": "----", "diagKeyIndex": "----",
		"nodeAddrType": "CR--", "nodeAddr": "CR--", "nodeTestedOnly": "CR--", "nodePort": "CR--", "nodeRowStatus": "CR--",
		"nodeMaintenanceUntil": "CR--", "nodeMaintenanceFor": "CR--", "nodeName": "CR--", "nodeHost": "CR--", "nodeCommunity": "CR--",
		"diagListChunkIndex": "----", "diagListDeltaSince": "----", "diagListDeltaChunkIndex": "----", "diagConflictNode": "---N", "diagConflictWinner": "---N", "diagConflictReason": "---N"}
	for name, oid := range Objects { // what diagCauseChange carries
		if strings.HasPrefix(oid, DiagCause+".") {
			want[name] = "---N"
		}
	}
	columnsAndScalars := 0
	for name, oid := range Objects {
		if !strings.HasPrefix(oid, HiADSDGroup+".") || name == "diagTree" || name == "diagTreeEntry" ||
			name == "diagEventTable" || name == "diagEventEntry" || name == "diagKeyTable" || name == "diagKeyEntry" ||
			name == "diagListTable" || name == "diagListEntry" || name == "diagListDeltaTable" || name == "diagListDeltaEntry" ||
			name == "diagConflict" || name == "diagCause" {
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
