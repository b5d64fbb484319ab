package config

import (
	"bytes"
	"testing"

	"github.com/diagagent/diagagent/agent/usm"
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

// TestProtocolNamesAreUSMs: every protocol name the file accepts has a
// meaning in package usm, and every name usm knows is accepted.
func TestProtocolNamesAreUSMs(t *testing.T) {
	auth, priv := usm.AuthProtocols(), usm.PrivProtocols()
	if len(auth) != len(authProtocols) || len(priv) != len(privProtocols) {
		t.Errorf("usm knows %d and %d protocols, the file %d and %d", len(auth), len(priv), len(authProtocols), len(privProtocols))
	}
	for _, n := range authProtocols {
		if _, ok := auth[n]; !ok {
			t.Errorf("auth_protocol %q means nothing to usm", n)
		}
	}
	for _, n := range privProtocols {
		if _, ok := priv[n]; !ok {
			t.Errorf("priv_protocol %q means nothing to usm", n)
		}
	}
}
