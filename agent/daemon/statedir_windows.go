package daemon

import (
	"cmp"
	"os"
	"path/filepath"
)

// DefaultStateDir is where the state survives restarts unless state_dir
// says otherwise: beside the configuration, %ProgramData%\diagagent\state.
var DefaultStateDir = filepath.Join(cmp.Or(os.Getenv("ProgramData"), `C:\ProgramData`), "diagagent", "state")
