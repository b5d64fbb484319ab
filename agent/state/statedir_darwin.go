package state

// DefaultDir is where the state survives restarts unless state_dir
// says otherwise: /usr/local/var, as Homebrew's daemons keep theirs.
const DefaultDir = "/usr/local/var/diagagent"
