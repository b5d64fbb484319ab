package board

import (
	"errors"
	"reflect"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

func TestPushRoundTrip(t *testing.T) {
	p := Push{From: 300, Cluster: 9, ListVersion: 4, ListHash: [8]byte{1, 2, 3, 4, 5, 6, 7, 8},
		Entries: []PushEntry{{NodeID: 7, Status: hiadsd.Faulty, Counter: 1 << 31}, {NodeID: 65535, Status: hiadsd.Partial, Counter: 2}}}
	b, err := MarshalPush(p)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) != 16+2*7 {
		t.Fatalf("%d octets, want 30", len(b))
	}
	got, err := ParsePush(b)
	if err != nil || !reflect.DeepEqual(got, p) {
		t.Fatalf("round trip: %+v, %v; want %+v", got, err, p)
	}
	if _, err := MarshalPush(Push{From: 1, Cluster: 1, Entries: make([]PushEntry, MaxPushEntries+1)}); !errors.Is(err, ErrPushLength) {
		t.Fatalf("too many entries: %v", err)
	}
	bad := map[string]struct {
		b   []byte
		err error
	}{
		"empty":         {nil, ErrPushLength},
		"half an entry": {append(append([]byte(nil), b...), 1, 2, 3), ErrPushLength},
		"format 2":      {append([]byte{2}, b[1:]...), ErrPushValue},
		"sender 0":      {append([]byte{1, 0, 0}, b[3:]...), ErrPushValue},
		"cluster 0":     {append(append([]byte(nil), b[:3]...), append([]byte{0}, b[4:]...)...), ErrPushValue},
		"status 5":      {append(append([]byte(nil), b[:18]...), append([]byte{5}, b[19:]...)...), ErrPushValue},
	}
	for name, c := range bad {
		if _, err := ParsePush(c.b); !errors.Is(err, c.err) {
			t.Errorf("%s: %v, want %v", name, err, c.err)
		}
	}
}

// FuzzParsePush: any value a SET may carry decodes or fails cleanly, and
// what decodes encodes back to the same octets.
func FuzzParsePush(f *testing.F) {
	b, err := MarshalPush(Push{From: 3, Cluster: 2, Entries: []PushEntry{{NodeID: 5, Status: hiadsd.Faulty, Counter: 9}}})
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
	f.Add([]byte{1})
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := ParsePush(b)
		if err != nil {
			return
		}
		again, err := MarshalPush(p)
		if err != nil || string(again) != string(b) {
			t.Fatalf("decoded %+v re-encodes as %x, %v; want %x", p, again, err, b)
		}
	})
}
