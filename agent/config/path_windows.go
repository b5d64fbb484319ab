package config

import (
	"cmp"
	"os"
	"path/filepath"
)

// DefaultPath is the configuration file read when -config is not given:
// %ProgramData%\diagagent\diagagent.yaml, where a Windows service keeps
// its settings (diagagent service install restricts the folder to SYSTEM
// and the Administrators).
var DefaultPath = filepath.Join(cmp.Or(os.Getenv("ProgramData"), `C:\ProgramData`), "diagagent", "diagagent.yaml")
