//go:build !windows

package keyring

import "os"

// openToOthers reports whether users other than the owner may read or
// write the file, as ssh refuses such a private key.
func openToOthers(fi os.FileInfo) bool { return fi.Mode().Perm()&0o077 != 0 }
