//go:build !windows && !darwin

package daemon

// DefaultStateDir is where the state survives restarts unless state_dir
// says otherwise (the package's unit makes it the service's StateDirectory).
const DefaultStateDir = "/var/lib/diagagent"
