package config

import (
	"bytes"
	"testing"

	"github.com/gosnmp/gosnmp"
)

// TestCredentials checks the gosnmp protocols and security level of the names a file uses.
func TestCredentials(t *testing.T) {
	cases := []struct {
		auth, priv string
		wantAuth   gosnmp.SnmpV3AuthProtocol
		wantPriv   gosnmp.SnmpV3PrivProtocol
		wantFlags  gosnmp.SnmpV3MsgFlags
	}{
		{"sha", "none", gosnmp.SHA, gosnmp.NoPriv, gosnmp.AuthNoPriv},
		{"SHA256", "", gosnmp.SHA256, gosnmp.NoPriv, gosnmp.AuthNoPriv},
		{"sha512", "aes", gosnmp.SHA512, gosnmp.AES, gosnmp.AuthPriv},
		{"sha224", "aes192", gosnmp.SHA224, gosnmp.AES192, gosnmp.AuthPriv},
		{"sha384", "aes256", gosnmp.SHA384, gosnmp.AES256, gosnmp.AuthPriv},
	}
	for _, tc := range cases {
		c := Credentials{Name: "u", AuthProtocol: tc.auth, AuthPassphrase: "12345678", PrivProtocol: tc.priv}
		usm := c.USM()
		if usm.AuthenticationProtocol != tc.wantAuth || usm.PrivacyProtocol != tc.wantPriv || c.MsgFlags() != tc.wantFlags || usm.UserName != "u" {
			t.Errorf("%s/%s: got %v %v %v", tc.auth, tc.priv, usm.AuthenticationProtocol, usm.PrivacyProtocol, c.MsgFlags())
		}
	}
}

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
