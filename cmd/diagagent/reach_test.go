package main

import (
	"bytes"
	"encoding/json"
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
