package config

import (
	"bytes"
	"testing"
)

// TestEngineID checks the hex forms snmp.engine_id accepts.
func TestEngineID(t *testing.T) {
	want := []byte{0x80, 0, 0, 0xc8, 4, 0xab}
	for _, s := range []string{"800000c804ab", "0x800000C804AB", "80:00:00:c8:04:ab"} {
		if got := (SNMP{EngineID: s}).EngineIDBytes(); !bytes.Equal(got, want) {
			t.Errorf("EngineIDBytes(%q) = %x", s, got)
		}
	}
	if got := (SNMP{}).EngineIDBytes(); got != nil {
		t.Errorf("empty engine_id gives %x", got)
	}
}
