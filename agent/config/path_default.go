//go:build !windows && !darwin

package config

// DefaultPath is the configuration file read when -config is not given.
const DefaultPath = "/etc/diagagent/diagagent.yaml"
