package usm

import (
	"testing"

	"github.com/gosnmp/gosnmp"
)

// TestCredentials checks the gosnmp protocols and security level of the protocol names.
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
		c := User{Name: "u", AuthProtocol: tc.auth, AuthPassphrase: "12345678", PrivProtocol: tc.priv}
		p := c.USM()
		if p.AuthenticationProtocol != tc.wantAuth || p.PrivacyProtocol != tc.wantPriv || c.MsgFlags() != tc.wantFlags || p.UserName != "u" {
			t.Errorf("%s/%s: got %v %v %v", tc.auth, tc.priv, p.AuthenticationProtocol, p.PrivacyProtocol, c.MsgFlags())
		}
	}
}
