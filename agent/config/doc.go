// Package config reads and checks the diagagent daemon's configuration.
//
// One YAML file, normally the same on every node, gives the node list and the settings;
// DIAG_* environment variables override the file and command-line flags override both:
//
//	fs := flag.NewFlagSet("diagagent", flag.ContinueOnError)
//	f := config.RegisterFlags(fs, parts.Defaults()) // -config, -config.check, -interval, -snmp.listen, ...
//	_ = fs.Parse(os.Args[1:])
//	cfg, err := config.Load(parts.Defaults(), f.Path, os.Environ(), fs) // defaults < file < env < flags, then Validate
//	local, _ := config.LocalAddrs()
//	id, err := config.ResolveID(cfg, local)   // id: -1 means "the node with this host's address"
//	bind := cfg.SNMPListen(id)                // snmp.listen: auto means "my entry in nodes"
//
// Every mistake is an *Error on one line that names the key and what to change; Validate
// returns all of them joined. Keys lists every key with its variable, default and meaning.
package config
