package board

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/diagagent/diagagent/hiadsd"
	"github.com/diagagent/diagagent/mib"
)

// Vantage is the value of diagVantage: a question an agent asks another
// (Ask: test Node now and tell me), or the answer (Answer: what the test
// found), when its own test found Node newly faulty or partial and the
// verdict needs a second vantage point (hiadsd/vantage.go).
type Vantage struct {
	Kind   VantageKind
	From   uint32 // the writer's NodeID
	Node   uint32 // the NodeID tested
	Nonce  uint32 // chosen by the asker, returned in the answer
	Status hiadsd.Status
}

// VantageKind says whether a Vantage asks or answers.
type VantageKind uint8

// The kinds, as the value's first octet.
const (
	Ask    VantageKind = 1
	Answer VantageKind = 2
)

// VantageLen is the length of a diagVantage value.
const VantageLen = 10

// ErrVantage is ParseVantage's error.
var ErrVantage = errors.New("diagVantage: bad value")

// MarshalVantage encodes v: kind (1), From (2), Node (2), Nonce (4) and,
// for an answer, Status as nodeStatus numbers it (1; 0 in a question).
func MarshalVantage(v Vantage) ([]byte, error) {
	if err := v.check(); err != nil {
		return nil, err
	}
	b := make([]byte, VantageLen)
	b[0] = byte(v.Kind)
	binary.BigEndian.PutUint16(b[1:], uint16(v.From))
	binary.BigEndian.PutUint16(b[3:], uint16(v.Node))
	binary.BigEndian.PutUint32(b[5:], v.Nonce)
	if v.Kind == Answer {
		b[9] = byte(mib.DiagStatus(v.Status))
	}
	return b, nil
}

// ParseVantage decodes a diagVantage value.
func ParseVantage(b []byte) (Vantage, error) {
	if len(b) != VantageLen {
		return Vantage{}, fmt.Errorf("%w: %d octets, want %d", ErrVantage, len(b), VantageLen)
	}
	v := Vantage{Kind: VantageKind(b[0]), From: uint32(binary.BigEndian.Uint16(b[1:])),
		Node: uint32(binary.BigEndian.Uint16(b[3:])), Nonce: binary.BigEndian.Uint32(b[5:])}
	switch v.Kind {
	case Ask:
		if b[9] != 0 {
			return Vantage{}, fmt.Errorf("%w: a question with status %d", ErrVantage, b[9])
		}
	case Answer:
		st, err := mib.StatusOf(int(b[9]))
		if err != nil {
			return Vantage{}, fmt.Errorf("%w: %v", ErrVantage, err)
		}
		v.Status = st
	}
	if err := v.check(); err != nil {
		return Vantage{}, err
	}
	return v, nil
}

// check names what the MIB cannot carry: another kind, a NodeID out of
// range or equal to the writer's, an answer of status unknown.
func (v Vantage) check() error {
	switch {
	case v.Kind != Ask && v.Kind != Answer:
		return fmt.Errorf("%w: kind %d", ErrVantage, v.Kind)
	case v.From < 1 || v.From > mib.MaxNodeID || v.Node < 1 || v.Node > mib.MaxNodeID || v.From == v.Node:
		return fmt.Errorf("%w: from %d about %d", ErrVantage, v.From, v.Node)
	case v.Kind == Answer && (v.Status == hiadsd.Unknown || !v.Status.Valid()):
		return fmt.Errorf("%w: answer %v", ErrVantage, v.Status)
	}
	return nil
}
