package config

import (
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// checkShape walks raw settings against type t and reports every key that names no
// setting and every value written as a map or list where it cannot be one.
func checkShape(path string, raw any, t reflect.Type) []error {
	if raw == nil {
		return nil
	}
	switch {
	case isLeaf(t):
		if kind := shapeOf(raw); kind != "" {
			return []error{bad(path, "a %s is not allowed here; %s", kind, hint(t))}
		}
		return nil
	case t.Kind() == reflect.Slice:
		return checkList(path, raw, t)
	}
	m, ok := asMap(raw)
	if !ok {
		return []error{bad(path, "%s is not a map; write a map of keys (%s)", describe(raw), strings.Join(fieldNames(t), ", "))}
	}
	var errs []error
	for _, k := range sortedKeys(m) {
		f, ok := fieldNamed(t, k)
		if !ok {
			errs = append(errs, unknownKey(join(path, keyText(k)), k, fieldNames(t)))
			continue
		}
		errs = append(errs, checkShape(join(path, f.name), m[k], f.typ)...)
	}
	return errs
}

// checkList checks a list value; a list of scalars may also be one comma-separated string.
func checkList(path string, raw any, t reflect.Type) []error {
	items, ok := raw.([]any)
	if !ok {
		if _, isStr := raw.(string); isStr && isLeaf(t.Elem()) {
			return nil
		}
		return []error{bad(path, "%s is not a list; write a list", describe(raw))}
	}
	var errs []error
	for i, item := range items {
		errs = append(errs, checkShape(fmt.Sprintf("%s[%d]", path, i), item, t.Elem())...)
	}
	return errs
}

// unknownKey reports a key with no setting, suggesting the nearest valid one.
func unknownKey(path, key string, valid []string) error {
	msg := "no such key; valid keys here: " + strings.Join(valid, ", ")
	if near := nearest(key, valid); near != "" {
		msg = fmt.Sprintf("no such key; did you mean %s?", near)
	}
	return &Error{Key: path, Msg: msg, Err: ErrUnknownKey}
}

// nearest returns the valid key within edit distance 2 of key (and nearer than
// key is long), or "".
func nearest(key string, valid []string) string {
	best, bestDist := "", 3
	for _, v := range valid {
		if d := editDistance(strings.ToLower(key), v); d < bestDist && d < len(key) {
			best, bestDist = v, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// asMap returns raw as a string-keyed map if it is a map of any kind.
func asMap(raw any) (map[string]any, bool) {
	switch m := raw.(type) {
	case map[string]any:
		return m, true
	case map[any]any:
		out := make(map[string]any, len(m))
		for k, v := range m {
			out[fmt.Sprint(k)] = v
		}
		return out, true
	}
	return nil, false
}

// shapeOf names raw's shape when it is a map or a list, and returns "" for a scalar.
func shapeOf(raw any) string {
	if _, ok := asMap(raw); ok {
		return "map"
	}
	if reflect.ValueOf(raw).Kind() == reflect.Slice {
		return "list"
	}
	return ""
}

// describe names what raw is, for messages.
func describe(raw any) string {
	if s := shapeOf(raw); s != "" {
		return "a " + s
	}
	return fmt.Sprintf("%q", fmt.Sprint(raw))
}

// fieldNames lists the keys of struct type t.
func fieldNames(t reflect.Type) []string {
	fs := structFields(t)
	names := make([]string, len(fs))
	for i, f := range fs {
		names[i] = f.name
	}
	return names
}

// sortedKeys returns m's keys in order, so that mistakes are reported deterministically.
func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// keyText writes a key found in the input as is when it is a plain word, else quoted,
// so that a message stays on one line.
func keyText(k string) string {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return strconv.Quote(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

// join appends key to a dotted path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
