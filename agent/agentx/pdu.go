package agentx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Type is a PDU's h.type (RFC 2741 section 6.1).
type Type uint8

// The PDU types.
const (
	TypeOpen            Type = 1
	TypeClose           Type = 2
	TypeRegister        Type = 3
	TypeUnregister      Type = 4
	TypeGet             Type = 5
	TypeGetNext         Type = 6
	TypeGetBulk         Type = 7
	TypeTestSet         Type = 8
	TypeCommitSet       Type = 9
	TypeUndoSet         Type = 10
	TypeCleanupSet      Type = 11
	TypeNotify          Type = 12
	TypePing            Type = 13
	TypeIndexAllocate   Type = 14
	TypeIndexDeallocate Type = 15
	TypeAddAgentCaps    Type = 16
	TypeRemoveAgentCaps Type = 17
	TypeResponse        Type = 18
)

var typeNames = [...]string{"", "Open", "Close", "Register", "Unregister", "Get", "GetNext", "GetBulk", "TestSet",
	"CommitSet", "UndoSet", "CleanupSet", "Notify", "Ping", "IndexAllocate", "IndexDeallocate", "AddAgentCaps",
	"RemoveAgentCaps", "Response"}

// String names the type as the RFC does.
func (t Type) String() string {
	if int(t) < len(typeNames) && t != 0 {
		return typeNames[t]
	}
	return fmt.Sprintf("Type(%d)", uint8(t))
}

// The header flags (section 6.1).
const (
	FlagInstanceRegistration = 0x01
	FlagNewIndex             = 0x02
	FlagAnyIndex             = 0x04
	FlagNonDefaultContext    = 0x08
	FlagNetworkByteOrder     = 0x10
)

// Error is res.error of a Response (section 6.2.16); the SNMP error statuses
// (wrongType 7 ... inconsistentName 18) share the space.
type Error uint16

// The AgentX errors, and the SNMP ones a subagent answers sets with.
const (
	NoError               Error = 0
	GenErr                Error = 5
	NoAccess              Error = 6
	WrongType             Error = 7
	WrongLength           Error = 8
	WrongEncoding         Error = 9
	WrongValue            Error = 10
	NoCreation            Error = 11
	InconsistentValue     Error = 12
	ResourceUnavailable   Error = 13
	CommitFailed          Error = 14
	UndoFailed            Error = 15
	NotWritable           Error = 17
	InconsistentName      Error = 18
	OpenFailed            Error = 256
	NotOpen               Error = 257
	UnsupportedContext    Error = 262
	DuplicateRegistration Error = 263
	UnknownRegistration   Error = 264
	ParseError            Error = 266
	RequestDenied         Error = 267
	ProcessingError       Error = 268
)

// Close reasons (section 6.2.2).
const (
	ReasonOther         = 1
	ReasonParseError    = 2
	ReasonProtocolError = 3
	ReasonTimeouts      = 4
	ReasonShutdown      = 5
	ReasonByManager     = 6
)

// VarType is a VarBind's v.type; the values are the SNMP BER tags.
type VarType uint16

// The value types (section 5.4).
const (
	Integer        VarType = 2
	OctetString    VarType = 4
	Null           VarType = 5
	ObjectID       VarType = 6
	IPAddress      VarType = 64
	Counter32      VarType = 65
	Gauge32        VarType = 66
	TimeTicks      VarType = 67
	Opaque         VarType = 68
	Counter64      VarType = 70
	NoSuchObject   VarType = 128
	NoSuchInstance VarType = 129
	EndOfMibView   VarType = 130
)

// OID is an object identifier as a list of sub-identifiers.
type OID []uint32

// String writes it dotted, with a leading dot.
func (o OID) String() string {
	b := make([]byte, 0, 4*len(o))
	for _, s := range o {
		b = fmt.Appendf(b, ".%d", s)
	}
	return string(b)
}

// Compare orders OIDs lexicographically: -1, 0 or 1.
func (o OID) Compare(p OID) int {
	for i := 0; i < len(o) && i < len(p); i++ {
		switch {
		case o[i] < p[i]:
			return -1
		case o[i] > p[i]:
			return 1
		}
	}
	switch {
	case len(o) < len(p):
		return -1
	case len(o) > len(p):
		return 1
	}
	return 0
}

// HasPrefix reports whether p is o or an ancestor of o.
func (o OID) HasPrefix(p OID) bool {
	return len(o) >= len(p) && o[:len(p)].Compare(p) == 0
}

// VarBind is one variable binding: Num holds the integer types (Integer
// as a two's-complement int32, IpAddress as four octets big-endian), Bytes
// OctetString and Opaque, Value ObjectID; Null and the exceptions carry nothing.
type VarBind struct {
	Type  VarType
	Name  OID
	Num   uint64
	Bytes []byte
	Value OID
}

// SearchRange is a range of a Get, GetNext or GetBulk (section 5.2): the
// start (included if Include), and the end it must stay below (none if empty).
type SearchRange struct {
	Start   OID
	Include bool
	End     OID
}

// PDU is any AgentX PDU: the header, then the fields its type uses.
type PDU struct {
	Type          Type
	Flags         uint8
	SessionID     uint32
	TransactionID uint32
	PacketID      uint32
	Context       []byte // with FlagNonDefaultContext

	Timeout uint8  // Open, Register: seconds, 0 for the default
	ID      OID    // Open: the subagent's identifier
	Descr   []byte // Open: its description
	Reason  uint8  // Close

	Priority   uint8  // Register, Unregister
	RangeSubID uint8  // Register, Unregister: 0 for a single subtree
	Subtree    OID    // Register, Unregister
	UpperBound uint32 // Register, Unregister with RangeSubID

	NonRepeaters, MaxRepetitions uint16        // GetBulk
	Ranges                       []SearchRange // Get, GetNext, GetBulk

	SysUpTime uint32    // Response
	Error     Error     // Response
	Index     uint16    // Response
	VarBinds  []VarBind // TestSet, Notify, Response
}

// HeaderSize is the size of the fixed header.
const HeaderSize = 20

// MaxPayload bounds a PDU's payload; a larger one is a parse error. Masters
// send small PDUs; the bound keeps a broken peer from making us allocate.
const MaxPayload = 1 << 20

// ErrParse is wrapped by every decoding error.
var ErrParse = errors.New("agentx: parse error")

func parseErr(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrParse, fmt.Sprintf(format, args...))
}

// hasContext reports whether a PDU of type t carries the context field.
func hasContext(t Type) bool {
	switch t {
	case TypeRegister, TypeUnregister, TypeGet, TypeGetNext, TypeGetBulk, TypeTestSet, TypeNotify, TypePing,
		TypeIndexAllocate, TypeIndexDeallocate, TypeAddAgentCaps, TypeRemoveAgentCaps:
		return true
	}
	return false
}

// ReadPDU reads one PDU from r: the header, then exactly its payload.
func ReadPDU(r io.Reader) (*PDU, error) {
	var h [HeaderSize]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return nil, err
	}
	n := order(h[2]).Uint32(h[16:20])
	if n > MaxPayload || n%4 != 0 {
		return nil, parseErr("payload length %d", n)
	}
	b := make([]byte, HeaderSize+int(n))
	copy(b, h[:])
	if _, err := io.ReadFull(r, b[HeaderSize:]); err != nil {
		return nil, err
	}
	return Decode(b)
}

// order is the byte order h.flags gives.
func order(flags byte) binary.ByteOrder {
	if flags&FlagNetworkByteOrder != 0 {
		return binary.BigEndian
	}
	return binary.LittleEndian
}
