package config

import (
	"flag"
	"sort"
	"strings"
)

// envSettings returns the [key, value] pairs the DIAG_* variables in env set, in a
// stable order; a DIAG_* variable that names no key is a mistake.
func envSettings(env []string) ([][2]string, error) {
	byEnv := map[string]Key{}
	fileOnly := map[string]Key{}
	for _, k := range Keys(nil) { // the names alone
		if k.FileOnly {
			fileOnly[envName(k.Name)] = k
			continue
		}
		byEnv[k.Env] = k
	}
	var out [][2]string
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) {
			continue
		}
		if k, ok := byEnv[name]; ok {
			out = append(out, [2]string{k.Name, value})
			continue
		}
		if k, ok := fileOnly[name]; ok {
			return nil, &Error{Key: name, Msg: k.Name + " can only be given in the configuration file; unset it", Err: ErrUnknownKey}
		}
		return nil, &Error{Key: name, Msg: "names no key; unset it, or spell the key in capitals with _ for each dot, such as DIAG_SNMP_LISTEN", Err: ErrUnknownKey}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i][0] < out[j][0] })
	return out, nil
}

// Flags are the command-line switches RegisterFlags adds besides one flag per key.
type Flags struct {
	// Path is the YAML file given with -config.
	Path string
	// Check is -config.check: validate the configuration and exit.
	Check bool
	// Version is -version: print the build's version and exit.
	Version bool
	// Man is -man: print the manual page (roff) and exit.
	Man bool
}

// RegisterFlags adds -config, -config.check, -version and one string flag per key (named like the
// key, e.g. -snmp.listen, its usage giving the default Default(parts) has) to fs; Load applies
// the key flags that were set. Give it a FlagSet of its own: in a test binary
// flag.CommandLine already has -test.timeout.
func RegisterFlags(fs *flag.FlagSet, parts Defaults) *Flags {
	f := &Flags{}
	fs.StringVar(&f.Path, "config", DefaultPath, "YAML configuration `file`")
	fs.BoolVar(&f.Check, "config.check", false, "validate the configuration and exit")
	fs.BoolVar(&f.Version, "version", false, "print the version and exit")
	fs.BoolVar(&f.Man, "man", false, "print the manual page diagagent(8) in roff and exit")
	for _, k := range Keys(parts) {
		if k.FileOnly {
			continue
		}
		typ := k.TypeName()
		usage := k.Doc + " (" + k.Env
		if typ != "bool" {
			usage = k.Doc + " (`" + typ + "`; " + k.Env
		}
		if k.Default != "" {
			usage += ", default " + k.Default
		}
		fs.Var(&keyFlag{boolean: typ == "bool"}, k.Name, usage+")")
	}
	return f
}

// keyFlag is the flag of one key: it keeps the text given, which Load
// decodes as it decodes the file's, and tells -h the key's type; a bool
// key's flag may be given alone (-fault_injection).
type keyFlag struct {
	text    string
	boolean bool
}

func (f *keyFlag) String() string     { return f.text }
func (f *keyFlag) Set(s string) error { f.text = s; return nil }
func (f *keyFlag) IsBoolFlag() bool   { return f.boolean }

// flagSettings returns the [key, value] pairs of the key flags set on fs.
func flagSettings(fs *flag.FlagSet) [][2]string {
	if fs == nil {
		return nil
	}
	keys := map[string]bool{}
	for _, k := range Keys(nil) { // the names alone
		keys[k.Name] = !k.FileOnly
	}
	var out [][2]string
	fs.Visit(func(f *flag.Flag) {
		if keys[f.Name] {
			out = append(out, [2]string{f.Name, f.Value.String()})
		}
	})
	return out
}
