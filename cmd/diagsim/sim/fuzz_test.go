package sim

import "testing"

// FuzzParseEvent: any input either fails with ErrBadEvent-wrapped errors or
// yields an event that survives a round trip through String.
func FuzzParseEvent(f *testing.F) {
	for _, s := range []string{"fault 5@100", "repair 0@2.5", "partial 12 @ 300", "fault 5@1e3", "x", "fault @"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseEvent(s)
		if err != nil {
			return
		}
		back, err := ParseEvent(e.String())
		if err != nil || back != e {
			t.Fatalf("%q parsed to %v, which reparses to %v, %v", s, e, back, err)
		}
	})
}
