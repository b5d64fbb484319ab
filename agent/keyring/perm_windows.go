package keyring

import "os"

// openToOthers is false on Windows: Go reports no owner or group bits
// there (a file reads 0666 or 0444), and the folder's access control list
// is what guards the key: diagagent service install restricts
// %ProgramData%\diagagent to SYSTEM and the Administrators.
func openToOthers(os.FileInfo) bool { return false }
