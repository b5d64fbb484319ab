package mib

import (
	"bytes"
	"slices"
	"testing"
)

func TestNodeIDsRoundTrip(t *testing.T) {
	for _, ids := range [][]uint32{{}, {9}, {1, 10, 11, 13}, {1024}} {
		got, err := ParseNodeIDs(EncodeNodeIDs(ids))
		if err != nil || !slices.Equal(got, ids) {
			t.Errorf("%v: read back %v, %v", ids, got, err)
		}
	}
	for _, bad := range [][]byte{{0}, {0, 0}, {0, 2, 0, 1}, {0, 3, 0, 3}} {
		if got, err := ParseNodeIDs(bad); err == nil {
			t.Errorf("% x read as %v, want an error", bad, got)
		}
	}
}

// FuzzParseNodeIDs: any octets either fail or read as NodeIDs that encode
// back to the same octets.
func FuzzParseNodeIDs(f *testing.F) {
	f.Add([]byte{0, 1, 0, 10})
	f.Add([]byte{0, 1, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		ids, err := ParseNodeIDs(b)
		if err != nil {
			return
		}
		if !bytes.Equal(EncodeNodeIDs(ids), b) {
			t.Fatalf("% x read as %v, which encodes as % x", b, ids, EncodeNodeIDs(ids))
		}
	})
}
