package usm

import (
	"bytes"
	"fmt"
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

// TestLocalizedAsGosnmp: the keys Localized gives for each engine are those
// gosnmp derives itself, for every privacy protocol, AES-128 included.
func TestLocalizedAsGosnmp(t *testing.T) {
	for priv := range PrivProtocols() {
		for _, auth := range []string{"sha", "sha256", "sha512"} {
			u := User{Name: "diag", AuthProtocol: auth, AuthPassphrase: "auth-pass-" + auth, PrivProtocol: priv, PrivPassphrase: "priv-pass-" + priv}
			for _, engine := range []string{"\x80\x00\x00\xc8\x04first", "\x80\x00\x00\xc8\x04second-engine"} {
				sp := u.USM()
				sp.AuthoritativeEngineID = engine
				if err := sp.InitSecurityKeys(); err != nil {
					t.Fatal(err)
				}
				a, p, err := u.Localized(engine)
				if err != nil {
					t.Fatalf("%s/%s: %v", auth, priv, err)
				}
				if !bytes.Equal(a, sp.SecretKey) || !bytes.Equal(p, sp.PrivacyKey) {
					t.Fatalf("%s/%s at %q: keys %x %x, gosnmp's %x %x", auth, priv, engine, a, p, sp.SecretKey, sp.PrivacyKey)
				}
			}
		}
	}
}

// BenchmarkLocalizedNewEngine is the keys of the cluster key's user (SHA-256,
// AES) for an engine never seen before: what a peer's first exchange costs.
func BenchmarkLocalizedNewEngine(b *testing.B) {
	u := User{Name: "diag", AuthProtocol: "sha256", AuthPassphrase: "an-auth-pass-phrase", PrivProtocol: "aes", PrivPassphrase: "a-priv-pass-phrase"}
	if _, _, err := u.Localized("\x80\x00\x00\xc8\x04warm-up"); err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		if _, _, err := u.Localized(fmt.Sprintf("\x80\x00\x00\xc8\x04engine-%d", i)); err != nil {
			b.Fatal(err)
		}
	}
}
