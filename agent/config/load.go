package config

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/go-viper/mapstructure/v2"
	"github.com/spf13/viper"
)

// Load builds the configuration from Default, the YAML file at path (none when path is
// empty), the DIAG_* variables in env ("KEY=value", as os.Environ returns) and the key
// flags set in fs (nil for none), each overriding the ones before, and validates it.
func Load(path string, env []string, fs *flag.FlagSet) (Config, error) {
	var data []byte
	if path != "" {
		b, err := os.ReadFile(path)
		if err != nil {
			return Config{}, &Error{Key: path, Msg: fmt.Sprintf("cannot read it (%s); check the -config path and its permissions", oneLine(rootCause(err))), Err: fmt.Errorf("%w: %w", ErrFile, err)}
		}
		data = b
	}
	c, err := Parse(path, data, env, fs)
	if c.Keyring != "" && !filepath.IsAbs(c.Keyring) && path != "" {
		c.Keyring = filepath.Join(filepath.Dir(path), c.Keyring) // beside the file, also under systemd's credentials
	}
	return c, err
}

// Parse is Load for YAML already in memory; name stands for the file in messages.
func Parse(name string, data []byte, env []string, fs *flag.FlagSet) (Config, error) {
	file, err := readYAML(name, data)
	if err != nil {
		return Config{}, err
	}
	if errs := checkShape("", file, reflect.TypeFor[Config]()); len(errs) > 0 {
		return Config{}, errors.Join(errs...)
	}
	v := viper.New()
	for _, k := range Keys() {
		if !k.FileOnly {
			v.SetDefault(k.Name, k.Default)
		}
	}
	if err := v.MergeConfigMap(file); err != nil {
		return Config{}, &Error{Key: name, Msg: oneLine(err.Error()), Err: fmt.Errorf("%w: %w", ErrFile, err)}
	}
	if err := applyOverrides(v, env, fs); err != nil {
		return Config{}, err
	}
	var c Config
	if err := v.UnmarshalExact(&c, viper.DecodeHook(mapstructure.DecodeHookFuncType(decodeHook))); err != nil {
		return Config{}, decodeMistakes(err)
	}
	fillNodeDefaults(&c, file)
	if err := hostOrAddress(file); err != nil {
		return c, err
	}
	return c, c.Validate()
}

// readYAML parses the file into viper's raw settings (keys in lower case).
func readYAML(name string, data []byte) (map[string]any, error) {
	fv := viper.New()
	fv.SetConfigType("yaml")
	if err := fv.ReadConfig(bytes.NewReader(data)); err != nil {
		return nil, &Error{Key: name, Msg: fmt.Sprintf("is not valid YAML (%s); fix the line it names", oneLine(rootCause(err))), Err: fmt.Errorf("%w: %w", ErrFile, err)}
	}
	return fv.AllSettings(), nil
}

// applyOverrides sets the DIAG_* variables, then the flags, above the file's values.
func applyOverrides(v *viper.Viper, env []string, fs *flag.FlagSet) error {
	vars, err := envSettings(env)
	if err != nil {
		return err
	}
	for _, s := range vars {
		v.Set(s[0], s[1])
	}
	for _, s := range flagSettings(fs) {
		v.Set(s[0], s[1])
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

// hasKey reports whether m has key, ignoring case as viper does.
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
