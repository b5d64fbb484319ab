// Package keyring is the cluster key: one random secret that every agent
// of a LAN holds, from which each derives the SNMPv3 user the agents speak
// to each other with (authPriv: HMAC-SHA-256 and AES-128), so that their
// tests, reads and pushes are authenticated and encrypted without an
// operator choosing names or pass phrases. A keyring holds one or more
// keys: the first sends, and every one is accepted, so a new key
// can be installed everywhere before it is used (memberlist's keyring,
// Consul's `keyring -install/-use/-remove`).
package keyring

import (
	"bufio"
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/diagagent/diagagent/agent/usm"
)

// Size is a key's length in bytes.
const Size = 32

// Key is one cluster key.
type Key [Size]byte

// ErrKey is the error of a key or a keyring file that cannot be used.
var ErrKey = errors.New("keyring")

// Generate returns a new random key.
func Generate() (Key, error) {
	for {
		var k Key
		if _, err := rand.Read(k[:]); err != nil {
			return Key{}, fmt.Errorf("%w: %v", ErrKey, err)
		}
		if k.Index() != 0 { // index 0 is no diagKeyTable row (one key in 2^32)
			return k, nil
		}
	}
}

// String is the key as written in a keyring file and printed by keygen:
// standard base64, 44 characters.
func (k Key) String() string { return base64.StdEncoding.EncodeToString(k[:]) }

// ParseKey reads a key as String writes it.
func ParseKey(s string) (Key, error) {
	k, err := decode(s)
	if err != nil {
		return Key{}, fmt.Errorf("%w: %v", ErrKey, err)
	}
	return k, nil
}

// decode is ParseKey without the package's prefix on the error.
func decode(s string) (Key, error) {
	b, err := base64.StdEncoding.DecodeString(strings.TrimSpace(s))
	if err != nil || len(b) != Size {
		return Key{}, fmt.Errorf("not a key: a key is %d random bytes in base64, 44 characters, as diagagent keygen prints", Size)
	}
	var k Key
	copy(k[:], b)
	if k.Index() == 0 {
		return Key{}, errors.New("a key whose index is 0 (one in 2^32) cannot be used: make another with diagagent keygen")
	}
	return k, nil
}

// derive is HMAC-SHA-256 of label under k: each use of the key gets its
// own secret, and none reveals another or the key.
func (k Key) derive(label string) []byte {
	m := hmac.New(sha256.New, k[:])
	m.Write([]byte(label))
	return m.Sum(nil)
}

// ID names the key without revealing it: 8 hex digits, the same on every
// agent, shown by keyring -list and in the logs.
func (k Key) ID() string { return fmt.Sprintf("%08x", k.Index()) }

// Index is ID as a number: the key's diagKeyTable index and its entry in
// a node list's Keys.
func (k Key) Index() uint32 { return binary.BigEndian.Uint32(k.derive("diagagent key id")) }

// userPrefix starts the name of every key's user.
const userPrefix = "diag-"

// User is the SNMPv3 user the agents speak to each other with under k:
// named after the key's ID, authPriv with SHA-256 and AES-128, its pass
// phrases derived from the key (64 hex digits each).
func (k Key) User() usm.User {
	return usm.User{
		Name:         userPrefix + k.ID(),
		AuthProtocol: "sha256", AuthPassphrase: hex.EncodeToString(k.derive("diagagent auth")),
		PrivProtocol: "aes", PrivPassphrase: hex.EncodeToString(k.derive("diagagent priv")),
	}
}

// Ring is a keyring: Keys[0] sends, all are accepted.
type Ring struct {
	Keys []Key
}

// Primary is the key that sends.
func (r Ring) Primary() Key { return r.Keys[0] }

// Users returns the user of every key, the primary's first.
func (r Ring) Users() []usm.User {
	out := make([]usm.User, len(r.Keys))
	for i, k := range r.Keys {
		out[i] = k.User()
	}
	return out
}

// Indexes returns every key's Index, in the ring's order.
func (r Ring) Indexes() []uint32 {
	out := make([]uint32, len(r.Keys))
	for i, k := range r.Keys {
		out[i] = k.Index()
	}
	return out
}

// Marshal writes the ring as a keyring file: one key per line, the primary
// first, after a comment naming each key.
func (r Ring) Marshal() []byte {
	var b bytes.Buffer
	b.WriteString("# diagagent keyring: the first key sends, all are accepted\n")
	for _, k := range r.Keys {
		fmt.Fprintf(&b, "# %s\n%s\n", k.ID(), k)
	}
	return b.Bytes()
}

// Parse reads a keyring file: one key per line, the first the one that sends;
// blank lines and lines starting with # are ignored. An error names the
// line.
func Parse(b []byte) (Ring, error) {
	r, err := parse(b)
	if err != nil {
		return Ring{}, fmt.Errorf("%w: %v", ErrKey, err)
	}
	return r, nil
}

// parse is Parse without the package's prefix on the error.
func parse(b []byte) (Ring, error) {
	var r Ring
	sc := bufio.NewScanner(bytes.NewReader(b))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, err := decode(line)
		if err != nil {
			return Ring{}, fmt.Errorf("line %d: %v", n, err)
		}
		for _, old := range r.Keys {
			if old == k {
				return Ring{}, fmt.Errorf("line %d: key %s is listed twice", n, k.ID())
			}
		}
		r.Keys = append(r.Keys, k)
	}
	if err := sc.Err(); err != nil {
		return Ring{}, err
	}
	if len(r.Keys) == 0 {
		return Ring{}, errors.New("no key: write one that diagagent keygen prints")
	}
	return r, nil
}

// Load reads the keyring file at path. A file that others than its owner
// may read or write is refused, as ssh refuses such a private key.
func Load(path string) (Ring, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return Ring{}, fmt.Errorf("%w: %s does not exist; make it once with diagagent keygen > %s (mode 0600) and copy the same file to every agent", ErrKey, path, path)
	}
	if err != nil {
		return Ring{}, fmt.Errorf("%w: %v", ErrKey, err)
	}
	if openToOthers(fi) {
		return Ring{}, fmt.Errorf("%w: %s is open to others (mode %04o): chmod 600 it", ErrKey, path, fi.Mode().Perm())
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Ring{}, fmt.Errorf("%w: %v", ErrKey, err)
	}
	r, err := parse(b)
	if err != nil {
		return Ring{}, fmt.Errorf("%w: %s: %v", ErrKey, path, err)
	}
	return r, nil
}
