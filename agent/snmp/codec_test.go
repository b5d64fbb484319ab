package snmp

import (
	"bytes"
	"fmt"
	"net/netip"
	"testing"

	"github.com/gosnmp/gosnmp"
)

// TestEncoderMatchesGosnmp encodes a response holding every value type with
// the community codec and reads it back with gosnmp's decoder.
func TestEncoderMatchesGosnmp(t *testing.T) {
	vals := []value{
		integer(0), integer(-1), integer(127), integer(128), integer(-129), integer(1<<31 - 1), integer(-1 << 31),
		gauge(0), gauge(128), gauge(1<<32 - 1), counter32(1 << 31), ticks(100),
		{typ: gosnmp.Counter64, num: 1<<64 - 1},
		str(""), str(string(bytes.Repeat([]byte("x"), 300))), octets([]byte{0, 1, 2}),
		ipAddr(netip.MustParseAddr("10.1.2.3")), objectID(mustOID(".1.3.6.1.4.1.200")),
		exception(gosnmp.NoSuchObject), exception(gosnmp.NoSuchInstance), exception(gosnmp.EndOfMibView), {typ: gosnmp.Null},
	}
	out := outcome{status: gosnmp.NoError}
	for i, v := range vals {
		out.vars = append(out.vars, varbind{mustOID(fmt.Sprintf(".1.3.6.1.2.%d.%d", i, 1<<31+i)), v})
	}
	p := &pdu{version: gosnmp.Version2c, community: []byte("public"), reqID: -5}
	b := appendCommunityResponse(nil, p, &out)
	if len(b) != communitySize(p, &out) {
		t.Fatalf("encoded %d octets, size said %d", len(b), communitySize(p, &out))
	}
	g, err := decode(b, nil)
	if err != nil {
		t.Fatalf("gosnmp cannot decode the response: %v", err)
	}
	if g.Community != "public" || g.PDUType != gosnmp.GetResponse || int32(g.RequestID) != -5 || len(g.Variables) != len(vals) {
		t.Fatalf("header mismatch: %+v", g)
	}
	want := toGosnmp(out.vars)
	for i, v := range g.Variables {
		w := want[i]
		if v.Name != w.Name || v.Type != w.Type || fmt.Sprint(normalize(v.Value)) != fmt.Sprint(normalize(w.Value)) {
			t.Errorf("varbind %d: gosnmp read %s %v %v, wrote %s %v %v", i, v.Name, v.Type, v.Value, w.Name, w.Type, w.Value)
		}
	}
}

// normalize maps the integer and byte types gosnmp and the agent use to one form.
func normalize(v any) any {
	switch x := v.(type) {
	case uint:
		return uint64(x)
	case uint32:
		return uint64(x)
	case int:
		return int64(x)
	case string:
		return []byte(x)
	}
	return v
}

// FuzzCodecMatchesGosnmp decodes community messages with both codecs: when
// both accept a message they must agree on everything the operations read.
func FuzzCodecMatchesGosnmp(f *testing.F) {
	for _, name := range []string{"v1_get_0", "v2c_getbulk_0", "v2c_set_0", "v2c_getnext_0"} {
		f.Add(readSeed(f, name))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		mine, err := decodeCommunity(&workspace{}, bytes.Clone(b))
		if err != nil {
			return
		}
		g, err := decode(bytes.Clone(b), nil)
		if err != nil || g.Version == gosnmp.Version3 {
			return
		}
		if string(mine.community) != g.Community || mine.typ != g.PDUType || uint32(mine.reqID) != g.RequestID ||
			len(mine.vbs) != len(g.Variables) {
			t.Fatalf("header: mine %+v, gosnmp %+v", mine, g)
		}
		for i, vb := range mine.vbs {
			if vb.name.String() != g.Variables[i].Name || vb.val.typ != g.Variables[i].Type {
				t.Fatalf("varbind %d: mine %s %v, gosnmp %s %v", i, vb.name, vb.val.typ, g.Variables[i].Name, g.Variables[i].Type)
			}
		}
	})
}
