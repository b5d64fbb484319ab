package config

import (
	"errors"
	"fmt"
)

// Sentinel errors; every error from Load, Validate and ResolveID wraps one of them.
var (
	// ErrFile means the configuration file could not be read or is not valid YAML.
	ErrFile = errors.New("cannot read the configuration file")
	// ErrUnknownKey means a file key, DIAG_* variable or list-item key names no setting.
	ErrUnknownKey = errors.New("unknown key")
	// ErrBadValue means a value has the wrong form or is out of range.
	ErrBadValue = errors.New("bad value")
	// ErrNoLocalNode means no node of the list (or more than one) has this host's address.
	ErrNoLocalNode = errors.New("cannot tell which node this is")
)

// Error is one configuration mistake: the key it concerns and what to change, on one line.
type Error struct {
	// Key is the setting at fault, as written in the file ("nodes[2].address"),
	// or the file path, environment variable or flag it came from.
	Key string
	// Msg says what is wrong and what to write instead.
	Msg string
	// Err is the sentinel error (ErrFile, ErrUnknownKey, ErrBadValue, ErrNoLocalNode).
	Err error
}

// Error renders the mistake as "config: KEY: MSG".
func (e *Error) Error() string {
	return "config: " + e.Key + ": " + e.Msg
}

// Unwrap returns the sentinel error so that errors.Is works.
func (e *Error) Unwrap() error {
	return e.Err
}

// bad returns an ErrBadValue mistake for key with a formatted message.
func bad(key, format string, args ...any) *Error {
	return &Error{Key: key, Msg: fmt.Sprintf(format, args...), Err: ErrBadValue}
}

// Mistakes returns the one-line mistakes err carries (several when Validate found several).
func Mistakes(err error) []*Error {
	var out []*Error
	var walk func(error)
	walk = func(e error) {
		var one *Error
		if multi, ok := e.(interface{ Unwrap() []error }); ok {
			for _, inner := range multi.Unwrap() {
				walk(inner)
			}
		} else if errors.As(e, &one) {
			out = append(out, one)
		}
	}
	if err != nil {
		walk(err)
	}
	return out
}
