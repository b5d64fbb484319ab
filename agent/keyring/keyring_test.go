package keyring

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gosnmp/gosnmp"
)

func TestGenerateParse(t *testing.T) {
	a, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Generate()
	if a == b {
		t.Fatal("two keys drawn alike")
	}
	if s := a.String(); len(s) != 44 {
		t.Errorf("key %q is %d characters, want 44", s, len(s))
	}
	got, err := ParseKey(a.String() + "\n")
	if err != nil || got != a {
		t.Fatalf("ParseKey(String()) = %v, %v", got, err)
	}
	for _, bad := range []string{"", "abc", strings.Repeat("A", 43), "!" + a.String()[1:]} {
		if _, err := ParseKey(bad); !errors.Is(err, ErrKey) {
			t.Errorf("ParseKey(%q) = %v, want ErrKey", bad, err)
		}
	}
}

// TestUser: the derived user is the same for the same key, another for
// another key, authPriv with SHA-256 and AES, and reveals no part of the key.
func TestUser(t *testing.T) {
	k, _ := ParseKey("3q2+7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=")
	u := k.User()
	if u != k.User() {
		t.Fatal("the same key derived two users")
	}
	if u.AuthProto() != gosnmp.SHA256 || u.PrivProto() != gosnmp.AES || u.MsgFlags() != gosnmp.AuthPriv {
		t.Errorf("user %+v is not authPriv with SHA-256 and AES", u)
	}
	if !strings.HasPrefix(u.Name, "diag-") || len(u.Name) != 13 || len(u.AuthPassphrase) != 64 || u.AuthPassphrase == u.PrivPassphrase {
		t.Errorf("user %+v: want diag-<8 hex>, two different 64-digit pass phrases", u)
	}
	other, _ := Generate()
	if o := other.User(); o.Name == u.Name || o.AuthPassphrase == u.AuthPassphrase {
		t.Error("two keys derived the same user")
	}
	for _, s := range []string{u.Name, u.AuthPassphrase, u.PrivPassphrase} {
		if strings.Contains(s, "dead") || strings.Contains(s, k.String()[:8]) {
			t.Errorf("%q shows the key", s)
		}
	}
}

func TestParseRing(t *testing.T) {
	a, _ := Generate()
	b, _ := Generate()
	r, err := Parse([]byte("# the cluster's keys\n\n" + b.String() + "\n  " + a.String() + "  \n"))
	if err != nil || len(r.Keys) != 2 || r.Primary() != b || r.Users()[1] != a.User() {
		t.Fatalf("Parse = %+v, %v", r, err)
	}
	for _, c := range []struct{ in, want string }{
		{"", "no key"},
		{"# only a comment\n", "no key"},
		{a.String() + "\nnot-a-key\n", "line 2: not a key"},
		{a.String() + "\n" + a.String() + "\n", "line 2: key " + a.ID() + " is listed twice"},
	} {
		_, err := Parse([]byte(c.in))
		if !errors.Is(err, ErrKey) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q) = %v, want an ErrKey saying %q", c.in, err, c.want)
		}
	}
}

func TestLoadRefusesAFileOthersCanRead(t *testing.T) {
	k, _ := Generate()
	path := filepath.Join(t.TempDir(), "keyring")
	if err := os.WriteFile(path, []byte(k.String()+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("Load of a 0644 keyring = %v, want a refusal naming chmod 600", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := Load(path)
	if err != nil || r.Primary() != k {
		t.Fatalf("Load = %+v, %v", r, err)
	}
	if err := os.WriteFile(path, []byte("junk\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err == nil || !strings.Contains(err.Error(), path+": line 1: not a key") {
		t.Fatalf("Load of a bad keyring = %v, want the path and the line", err)
	}
}

// TestIndexAndMarshal: a key's Index is its ID as a number and its user's
// name; Indexes follows the ring's order; Marshal writes a file
// Parse reads back, the primary first.
func TestIndexAndMarshal(t *testing.T) {
	a, _ := Generate()
	b, _ := Generate()
	if id := fmt.Sprintf("%08x", a.Index()); id != a.ID() || a.User().Name != "diag-"+id || a.Index() == 0 {
		t.Fatalf("Index %d, ID %s, user %s: want one name", a.Index(), a.ID(), a.User().Name)
	}
	r := Ring{Keys: []Key{b, a}}
	if got := r.Indexes(); !slices.Equal(got, []uint32{b.Index(), a.Index()}) {
		t.Errorf("Indexes = %v", got)
	}
	back, err := Parse(r.Marshal())
	if err != nil || !slices.Equal(back.Keys, r.Keys) {
		t.Fatalf("Parse(Marshal()) = %v, %v; want the ring, primary first", back.Keys, err)
	}
}
