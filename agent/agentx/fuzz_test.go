package agentx

import (
	"reflect"
	"testing"
)

// FuzzDecode: no input makes Decode panic, and what it accepts encodes to
// bytes that decode to the same PDU.
func FuzzDecode(f *testing.F) {
	for _, p := range samplePDUs() {
		b, err := p.Encode()
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		p, err := Decode(b)
		if err != nil {
			return
		}
		again, err := p.Encode()
		if err != nil {
			t.Fatalf("a decoded PDU does not encode: %v\n%+v", err, p)
		}
		q, err := Decode(again)
		if err != nil {
			t.Fatalf("re-encoded PDU does not decode: %v", err)
		}
		p.Flags, q.Flags = 0, 0
		if !reflect.DeepEqual(normal(p), normal(q)) {
			t.Fatalf("round trip changed the PDU:\n%+v\n%+v", p, q)
		}
	})
}
