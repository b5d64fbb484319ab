package state

import (
	"cmp"
	"os"
	"path/filepath"
)

// DefaultDir is where the state survives restarts unless state_dir
// says otherwise: beside the configuration, %ProgramData%\diagagent\state.
var DefaultDir = filepath.Join(cmp.Or(os.Getenv("ProgramData"), `C:\ProgramData`), "diagagent", "state")
