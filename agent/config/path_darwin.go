package config

// DefaultPath is the configuration file read when -config is not given:
// macOS keeps a local daemon's files under /usr/local/etc (the launchd
// plist in configs/macos names it).
const DefaultPath = "/usr/local/etc/diagagent/diagagent.yaml"
