package config

import (
	"encoding"
	"fmt"
	"reflect"
	"strings"
	"time"
)

// Key describes one setting: its name in the file, how to set it from outside the file,
// its default and its meaning; Keys lists them for flags and documentation.
type Key struct {
	// Name is the dotted key as written in the file, e.g. "snmp.listen".
	Name string
	// Env is the environment variable that sets it, e.g. "DIAG_SNMP_LISTEN"; empty for file-only keys.
	Env string
	// Default is the default value as it would be written in the file.
	Default string
	// Doc says what the key means.
	Doc string
	// FileOnly is true for lists of entries (nodes, snmp.users), which only the file can give.
	FileOnly bool

	typ   reflect.Type
	index []int
}

// envPrefix starts every environment variable that sets a key.
const envPrefix = "DIAG_"

// Keys lists every key of Config in declaration order, each with its
// default as Default(parts) gives it.
func Keys(parts Defaults) []Key {
	return appendKeys(nil, reflect.ValueOf(Default(parts)), reflect.TypeFor[Config](), "", nil)
}

// appendKeys adds the keys of struct type t, named under prefix, to out,
// with their defaults read from def, the whole default configuration.
func appendKeys(out []Key, def reflect.Value, t reflect.Type, prefix string, index []int) []Key {
	for _, f := range structFields(t) {
		name := prefix + f.name
		idx := append(append([]int(nil), index...), f.index...)
		if !isLeaf(f.typ) && f.typ.Kind() == reflect.Struct {
			out = appendKeys(out, def, f.typ, name+".", idx)
			continue
		}
		k := Key{Name: name, Doc: f.doc, typ: f.typ, index: idx}
		k.FileOnly = f.typ.Kind() == reflect.Slice && !isLeaf(f.typ.Elem())
		if !k.FileOnly {
			k.Env = envName(name)
		}
		k.Default = formatValue(def.FieldByIndex(idx))
		out = append(out, k)
	}
	return out
}

// TypeName names what the key takes, as -h shows it: duration, int, bool,
// string, address (a station) or list (comma-separated).
func (k Key) TypeName() string {
	switch {
	case k.typ == reflect.TypeFor[time.Duration]():
		return "duration"
	case k.typ == reflect.TypeFor[Station]():
		return "address"
	case k.typ.Kind() == reflect.Slice:
		return "list"
	case k.typ.Kind() == reflect.Bool:
		return "bool"
	case k.typ.Kind() >= reflect.Int && k.typ.Kind() <= reflect.Uint64:
		return "int"
	}
	return "string"
}

// envName turns a dotted key into its environment variable: snmp.listen gives DIAG_SNMP_LISTEN.
func envName(key string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(key, ".", "_"))
}

// field is one decoded struct field: its key segment, type, doc tag and index path.
type field struct {
	name  string
	typ   reflect.Type
	doc   string
	index []int
}

// structFields lists the keyed fields of t, flattening fields tagged ",squash".
func structFields(t reflect.Type) []field {
	var out []field
	for i := range t.NumField() {
		sf := t.Field(i)
		tag := sf.Tag.Get("mapstructure")
		if tag == ",squash" {
			for _, inner := range structFields(sf.Type) {
				inner.index = append([]int{i}, inner.index...)
				out = append(out, inner)
			}
			continue
		}
		if tag == "" || tag == "-" {
			continue
		}
		out = append(out, field{name: tag, typ: sf.Type, doc: sf.Tag.Get("doc"), index: []int{i}})
	}
	return out
}

// isLeaf reports whether values of t are written as one scalar in the file.
func isLeaf(t reflect.Type) bool {
	if t == reflect.TypeFor[time.Duration]() || reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return true
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Slice, reflect.Map, reflect.Array:
		return false
	}
	return true
}

// formatValue writes v the way a YAML file or a flag would give it.
func formatValue(v reflect.Value) string {
	if v.Kind() == reflect.Slice {
		if !isLeaf(v.Type().Elem()) {
			return "[]"
		}
		parts := make([]string, v.Len())
		for i := range parts {
			parts[i] = formatValue(v.Index(i))
		}
		return strings.Join(parts, ",")
	}
	if s, ok := v.Interface().(fmt.Stringer); ok {
		if z, isZero := v.Interface().(interface{ IsValid() bool }); isZero && !z.IsValid() {
			return ""
		}
		return s.String()
	}
	return fmt.Sprint(v.Interface())
}

// typeAt returns the type a dotted key with optional [i] indexes decodes into, or nil.
func typeAt(key string) reflect.Type {
	t := reflect.TypeFor[Config]()
	for _, seg := range strings.Split(key, ".") {
		name, indexed := strings.CutSuffix(seg, "]")
		if indexed {
			open := strings.IndexByte(name, '[')
			if open < 0 {
				return nil
			}
			name = name[:open]
		}
		f, ok := fieldNamed(t, name)
		if !ok {
			return nil
		}
		t = f.typ
		if indexed && t.Kind() == reflect.Slice {
			t = t.Elem()
		}
	}
	return t
}

// fieldNamed finds the field of struct type t keyed name, ignoring case as the file's keys are read.
func fieldNamed(t reflect.Type, name string) (field, bool) {
	if t.Kind() != reflect.Struct || isLeaf(t) {
		return field{}, false
	}
	for _, f := range structFields(t) {
		if strings.EqualFold(f.name, name) {
			return f, true
		}
	}
	return field{}, false
}
