package config

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"go.yaml.in/yaml/v3"
)

// Load builds the configuration from Default(parts), the YAML file at path (none when path is
// empty), the DIAG_* variables in env ("KEY=value", as os.Environ returns) and the key
// flags set in fs (nil for none), each overriding the ones before, and validates it.
func Load(parts Defaults, path string, env []string, fs *flag.FlagSet) (Config, error) {
	var data []byte
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return Config{}, &Error{Key: path, Msg: fmt.Sprintf("cannot read it (%s); check the -config path and its permissions", oneLine(rootCause(err))), Err: fmt.Errorf("%w: %w", ErrFile, err)}
		}
		data = b
	}
	c, err := Parse(parts, path, data, env, fs)
	if c.Keyring != "" && !filepath.IsAbs(c.Keyring) && path != "" {
		c.Keyring = filepath.Join(filepath.Dir(path), c.Keyring) // beside the file, also under systemd's credentials
	}
	return c, err
}

// Parse is Load for YAML already in memory; name stands for the file in messages.
func Parse(parts Defaults, name string, data []byte, env []string, fs *flag.FlagSet) (Config, error) {
	file, err := readYAML(name, data)
	if err != nil {
		return Config{}, err
	}
	if errs := checkShape("", file, reflect.TypeFor[Config]()); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	settings := map[string]any{}
	for _, k := range Keys(parts) {
		if !k.FileOnly {
			setPath(settings, k.Name, k.Default)
		}
	}
	mergeMap(settings, file)
	if err := applyOverrides(settings, env, fs); err != nil {
		return Config{}, err
	}
	var c Config
	dec, err := mapstructure.NewDecoder(&mapstructure.DecoderConfig{
		ErrorUnused: true, WeaklyTypedInput: true, Result: &c,
		DecodeHook: mapstructure.DecodeHookFuncType(decodeHook),
	})
	if err != nil {
		return Config{}, err
	}
	if err := dec.Decode(settings); err != nil {
		return Config{}, decodeMistakes(err)
	}
	fillNodeDefaults(&c, file)
	if err := hostOrAddress(file); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// readYAML parses the file into its settings: keys in lower case at every
// depth (a key is matched without regard to case), and a key with no value
// or an empty map left out, as if not written.
func readYAML(name string, data []byte) (map[string]any, error) {
	var raw map[string]any
	if err := yaml.Unmarshal(data, &raw); err != nil {
		return nil, &Error{Key: name, Msg: fmt.Sprintf("is not valid YAML (%s); fix the line it names", oneLine(rootCause(err))), Err: fmt.Errorf("%w: %w", ErrFile, err)}
	}
	return given(raw), nil
}

// given returns m with its keys in lower case, without the keys that hold
// nothing (no value, or a map of nothing).
func given(m map[string]any) map[string]any {
	out := map[string]any{}
	for k, v := range m {
		v = lowerKeys(v)
		if sub, ok := v.(map[string]any); ok {
			if v = given(sub); len(v.(map[string]any)) == 0 {
				continue
			}
		}
		if v != nil {
			out[strings.ToLower(k)] = v
		}
	}
	return out
}

// lowerKeys puts the keys of every map in v, in lists too, in lower case,
// and turns a map with keys that are not strings into one with strings.
func lowerKeys(v any) any {
	switch t := v.(type) {
	case map[any]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[strings.ToLower(fmt.Sprint(k))] = lowerKeys(e)
		}
		return m
	case map[string]any:
		m := make(map[string]any, len(t))
		for k, e := range t {
			m[strings.ToLower(k)] = lowerKeys(e)
		}
		return m
	case []any:
		for i, e := range t {
			t[i] = lowerKeys(e)
		}
	}
	return v
}

// setPath sets the dotted key to value in the nested map m, making the maps
// on its way.
func setPath(m map[string]any, key string, value any) {
	parts := strings.Split(key, ".")
	for _, p := range parts[:len(parts)-1] {
		sub, ok := m[p].(map[string]any)
		if !ok {
			sub = map[string]any{}
			m[p] = sub
		}
		m = sub
	}
	m[parts[len(parts)-1]] = value
}

// mergeMap sets every value of src into dst, map into map.
func mergeMap(dst, src map[string]any) {
	for k, v := range src {
		if sv, ok := v.(map[string]any); ok {
			if dv, ok := dst[k].(map[string]any); ok {
				mergeMap(dv, sv)
				continue
			}
		}
		dst[k] = v
	}
}

// applyOverrides sets the DIAG_* variables, then the flags, above the file's values.
func applyOverrides(settings map[string]any, env []string, fs *flag.FlagSet) error {
	vars, err := envSettings(env)
	if err != nil {
		return err
	}
	for _, s := range vars {
		setPath(settings, s[0], s[1])
	}
	for _, s := range flagSettings(fs) {
		setPath(settings, s[0], s[1])
	}
	return nil
}

// fillNodeDefaults gives node entries the port, community and object they omit; a key
// written in the file, even with an odd value, is left for Validate to judge. With a
// keyring or test.v3_user, agents are tested with SNMPv3 only (AgentsV3), so a node
// that runs the agent gets no community: the prober would otherwise test it with the
// read community.
func fillNodeDefaults(c *Config, file map[string]any) {
	items, _ := file["nodes"].([]any)
	for i := range c.Nodes {
		var given map[string]any
		if i < len(items) {
			given, _ = asMap(items[i])
		}
		n := &c.Nodes[i]
		if !hasKey(given, "port") {
			n.Port = DefaultPort
		}
		if !hasKey(given, "community") && (n.TestedOnly || !c.AgentsV3()) {
			n.Community = c.SNMP.Communities.Read
		}
		if n.TestedOnly && !hasKey(given, "oid") {
			n.OID = SysUpTimeOID
		}
	}
}

// hostOrAddress refuses a node entry of the file that gives both a host
// name and an address.
func hostOrAddress(file map[string]any) error {
	items, _ := file["nodes"].([]any)
	var m mistakes
	for i, it := range items {
		given, _ := asMap(it)
		if hasKey(given, "host") && hasKey(given, "address") {
			m.add(fmt.Sprintf("nodes[%d].host", i), "is given with address; give one of them")
		}
	}
	return errors.Join(m...)
}

// hasKey reports whether m has key, ignoring case as the file's keys are read.
func hasKey(m map[string]any, key string) bool {
	for k := range m {
		if strings.EqualFold(k, key) {
			return true
		}
	}
	return false
}

// rootCause returns the message of the innermost error, without the wrappers' prefixes.
func rootCause(err error) string {
	for {
		inner := errors.Unwrap(err)
		if inner == nil {
			return err.Error()
		}
		err = inner
	}
}
