package board

import (
	"bytes"
	"errors"
	"testing"

	"github.com/diagagent/diagagent/hiadsd"
)

func TestVantageRoundTrip(t *testing.T) {
	for _, v := range []Vantage{
		{Kind: Ask, From: 6, Node: 14, Nonce: 0xdeadbeef},
		{Kind: Answer, From: 9, Node: 14, Nonce: 7, Status: hiadsd.Partial},
		{Kind: Answer, From: 9, Node: 14, Nonce: 7, Status: hiadsd.FaultFree},
	} {
		b, err := MarshalVantage(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := ParseVantage(b)
		if err != nil || got != v {
			t.Fatalf("%+v: parsed %+v, %v", v, got, err)
		}
	}
	for _, bad := range [][]byte{
		nil,
		make([]byte, VantageLen),          // kind 0
		{1, 0, 6, 0, 6, 0, 0, 0, 1, 0},    // about itself
		{1, 0, 6, 0, 7, 0, 0, 0, 1, 2},    // a question with a status
		{2, 0, 6, 0, 7, 0, 0, 0, 1, 3},    // answer unknown
		{2, 0, 6, 0, 7, 0, 0, 0, 1, 9},    // no such status
		{1, 0, 6, 0, 7, 0, 0, 0, 1, 0, 0}, // too long
	} {
		if _, err := ParseVantage(bad); !errors.Is(err, ErrVantage) {
			t.Errorf("ParseVantage(% x) = %v, want ErrVantage", bad, err)
		}
	}
}

// FuzzParseVantage: any value decodes or fails cleanly, and what decodes
// encodes back to the same octets.
func FuzzParseVantage(f *testing.F) {
	f.Add([]byte{1, 0, 6, 0, 14, 1, 2, 3, 4, 0})
	f.Add([]byte{2, 0, 6, 0, 14, 1, 2, 3, 4, 2})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseVantage(b)
		if err != nil {
			return
		}
		out, err := MarshalVantage(v)
		if err != nil || !bytes.Equal(out, b) {
			t.Fatalf("% x parsed as %+v encodes as % x, %v", b, v, out, err)
		}
	})
}
