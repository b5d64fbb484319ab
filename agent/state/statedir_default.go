//go:build !windows && !darwin

package state

// DefaultDir is where the state survives restarts unless state_dir
// says otherwise (the package's unit makes it the service's StateDirectory).
const DefaultDir = "/var/lib/diagagent"
