package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// TestPrintReach: one row per node with the agents that cannot reach it,
// the agents that did not answer or are older named under the table; a
// line saying so when every node is reachable; the same as JSON.
func TestPrintReach(t *testing.T) {
	r := reachReport{Rows: []reachRow{{ID: 9, Name: "ws-09", Address: "192.0.2.9:161", From: []uint32{1, 10, 11, 13}}},
		Asked: 16, Silent: []uint32{4}, Older: []uint32{7}}
	var b bytes.Buffer
	printReach(&b, r, "table")
	want := "ID  NAME   ADDRESS        UNREACHABLE FROM\n9   ws-09  192.0.2.9:161  1, 10, 11, 13\n" +
		"14 of 16 agents answered\nnot answering: 4\nolder than 1.1 (no diagUnreached): 7\n"
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	printReach(&b, reachReport{Asked: 3}, "table")
	if b.String() != "every node is reachable from every agent that answered (3 of 3)\n" {
		t.Errorf("none unreachable: %q", b.String())
	}
	b.Reset()
	printReach(&b, r, "json")
	var back reachReport
	if err := json.Unmarshal(b.Bytes(), &back); err != nil || len(back.Rows) != 1 || back.Rows[0].From[3] != 13 || back.Asked != 16 {
		t.Errorf("json %s read back as %+v, %v", b.String(), back, err)
	}
}

// TestBuildOf: the version read out of an agent's sysDescr.0, "?" for
// anything else.
func TestBuildOf(t *testing.T) {
	for descr, want := range map[string]string{
		"diagagent 1.1.0-dev+3475f8b99f18: distributed fault-management agent, vCube diagnosis": "1.1.0-dev+3475f8b99f18",
		"diagagent 1.0.0: distributed fault-management agent, vCube diagnosis":                  "1.0.0",
		"Linux printer 5.10":    "?",
		"diagagent: no version": "?",
		"":                      "?",
	} {
		if got := buildOf(descr); got != want {
			t.Errorf("buildOf(%q) = %q, want %q", descr, got, want)
		}
	}
}

// TestMembersVersionColumn: the VERSION column is there only when a row
// carries its agent's version.
func TestMembersVersionColumn(t *testing.T) {
	rows := []member{{ID: 1, Address: "192.0.2.1:161", Status: "fault-free", Learned: "tested here", Version: 4}}
	var b bytes.Buffer
	printMembers(&b, rows, "table")
	if strings.Contains(b.String(), "VERSION") {
		t.Errorf("no version asked, printed:\n%s", b.String())
	}
	rows[0].Build = "1.1.0"
	b.Reset()
	printMembers(&b, rows, "table")
	if lines := strings.Split(b.String(), "\n"); !strings.HasSuffix(strings.TrimSpace(lines[0]), "VERSION") || !strings.HasSuffix(strings.TrimSpace(lines[1]), "1.1.0") {
		t.Errorf("with versions, printed:\n%s", b.String())
	}
}
