//go:build !windows

package state

import (
	"fmt"
	"os"
	"path/filepath"
)

// replaceFile renames from over to, in the same directory, and syncs the
// directory so that the rename itself survives a power cut.
func replaceFile(from, to string) error {
	if err := os.Rename(from, to); err != nil {
		return fmt.Errorf("state: %w", err)
	}
	d, err := os.Open(filepath.Dir(to))
	if err != nil {
		return fmt.Errorf("state_dir: %w", err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("state_dir: sync: %w", err)
	}
	return nil
}
