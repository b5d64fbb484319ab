package config

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"net/netip"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/go-viper/mapstructure/v2"
)

// hookError is a decoding mistake whose message already says what to write.
type hookError struct{ msg string }

// Error returns the message.
func (e *hookError) Error() string { return e.msg }

// decodeHook turns strings from the file, DIAG_* variables and flags into typed values,
// with messages that say what to write instead.
func decodeHook(from, to reflect.Type, data any) (any, error) {
	if data == nil || from == to {
		return data, nil
	}
	if from.Kind() == reflect.String && to.Kind() == reflect.Slice && isLeaf(to.Elem()) {
		return splitList(data.(string)), nil
	}
	switch {
	case to == reflect.TypeFor[time.Duration]():
		return toDuration(data)
	case reflect.PointerTo(to).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()):
		return toText(to, data)
	case to.Kind() == reflect.Int:
		return toInt(data)
	case to.Kind() == reflect.Bool:
		return toBool(data)
	}
	return data, nil
}

// splitList reads a comma-separated list, as given by a DIAG_* variable or a flag.
func splitList(s string) []string {
	var out []string
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			out = append(out, part)
		}
	}
	return out
}

// toDuration parses a Go duration; a bare number is refused because its unit is unclear.
func toDuration(data any) (any, error) {
	s, ok := data.(string)
	if !ok {
		return nil, &hookError{fmt.Sprintf("%v has no unit; %s", data, hint(reflect.TypeFor[time.Duration]()))}
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return nil, &hookError{fmt.Sprintf("%q is not a duration; %s", s, hint(reflect.TypeFor[time.Duration]()))}
	}
	return d, nil
}

// toText parses an address, address:port or network; the empty string gives the zero value.
func toText(to reflect.Type, data any) (any, error) {
	s, ok := data.(string)
	if !ok {
		return nil, &hookError{fmt.Sprintf("%v is not text; %s", data, hint(to))}
	}
	out := reflect.New(to)
	if s = strings.TrimSpace(s); s == "" {
		return out.Elem().Interface(), nil
	}
	if err := out.Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(s)); err != nil {
		return nil, &hookError{fmt.Sprintf("%q is not %s; %s", s, noun(to), hint(to))}
	}
	return out.Elem().Interface(), nil
}

// toInt accepts whole numbers only: "1.5", "" and true are mistakes, not 1, 0 and 1.
func toInt(data any) (any, error) {
	v := reflect.ValueOf(data)
	switch {
	case v.CanInt():
		return data, nil
	case v.CanUint() && v.Uint() <= math.MaxInt64:
		return int64(v.Uint()), nil
	case v.CanFloat() && v.Float() == math.Trunc(v.Float()) && math.Abs(v.Float()) < 1<<53:
		return int64(v.Float()), nil
	case v.Kind() == reflect.String:
		if n, err := strconv.Atoi(strings.TrimSpace(v.String())); err == nil {
			return n, nil
		}
	}
	return nil, &hookError{fmt.Sprintf("%q is not a whole number; %s", fmt.Sprint(data), hint(reflect.TypeFor[int]()))}
}

// toBool accepts true and false (and the spellings strconv.ParseBool knows).
func toBool(data any) (any, error) {
	if s, ok := data.(string); ok {
		if b, err := strconv.ParseBool(strings.TrimSpace(s)); err == nil {
			return b, nil
		}
	}
	return nil, &hookError{fmt.Sprintf("%q is not true or false; %s", fmt.Sprint(data), hint(reflect.TypeFor[bool]()))}
}

// noun names what a value of type t is, for messages.
func noun(t reflect.Type) string {
	switch t {
	case reflect.TypeFor[netip.Addr]():
		return "an IP address"
	case reflect.TypeFor[Station]():
		return "a station"
	case reflect.TypeFor[netip.Prefix]():
		return "a network"
	}
	return "a " + t.String()
}

// hint says how a value of type t is written.
func hint(t reflect.Type) string {
	switch {
	case t == nil:
		return "see docs/configuration.md"
	case t == reflect.TypeFor[time.Duration]():
		return "write a duration such as 30s, 1m30s or 500ms"
	case t == reflect.TypeFor[netip.Addr]():
		return "write it as a.b.c.d or as an IPv6 address such as 2001:db8::1 (host names are not resolved)"
	case t == reflect.TypeFor[Station]():
		return "write it as a.b.c.d, [2001:db8::1] or a host name, with :port unless it is 162"
	case t == reflect.TypeFor[netip.Prefix]():
		return "write it as a.b.c.d/n"
	case t.Kind() == reflect.Slice:
		return "write a list"
	case t.Kind() == reflect.Struct:
		return "write a map of keys (" + strings.Join(fieldNames(t), ", ") + ")"
	}
	switch t.Kind() {
	case reflect.Int:
		return "write digits only, such as 3"
	case reflect.Bool:
		return "write true or false"
	}
	return "write a string"
}

// decodeMistakes turns mapstructure's decoding errors into one-line mistakes.
func decodeMistakes(err error) error {
	var errs []error
	var walk func(error)
	walk = func(e error) {
		var de *mapstructure.DecodeError
		switch {
		case errors.As(e, &de):
			errs = append(errs, decodeMistake(de))
		case e != nil:
			if multi, ok := e.(interface{ Unwrap() []error }); ok {
				for _, inner := range multi.Unwrap() {
					walk(inner)
				}
				return
			}
			if inner := errors.Unwrap(e); inner != nil {
				walk(inner)
				return
			}
			errs = append(errs, &Error{Key: "(decoding)", Msg: oneLine(e.Error()), Err: ErrBadValue})
		}
	}
	walk(err)
	return errors.Join(errs...)
}

// decodeMistake converts one mapstructure.DecodeError into an *Error naming its key.
func decodeMistake(de *mapstructure.DecodeError) *Error {
	var he *hookError
	if errors.As(de, &he) {
		return &Error{Key: de.Name(), Msg: he.msg, Err: fmt.Errorf("%w: %w", ErrBadValue, de)}
	}
	msg := "has the wrong type; " + hint(typeAt(de.Name()))
	return &Error{Key: de.Name(), Msg: msg, Err: fmt.Errorf("%w: %w", ErrBadValue, de)}
}

// oneLine folds a multi-line message into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
