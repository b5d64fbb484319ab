package state

import (
	"fmt"

	"golang.org/x/sys/windows"
)

// replaceFile puts from in place of to with MoveFileEx: replacing an
// existing file, and returning only once the move is on disk
// (MOVEFILE_WRITE_THROUGH). Windows cannot sync a directory; the write
// through is its way to make the rename durable. The file was synced
// before (writeAtomic).
func replaceFile(from, to string) error {
	f, err := windows.UTF16PtrFromString(from)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	t, err := windows.UTF16PtrFromString(to)
	if err != nil {
		return fmt.Errorf("state: %w", err)
	}
	if err := windows.MoveFileEx(f, t, windows.MOVEFILE_REPLACE_EXISTING|windows.MOVEFILE_WRITE_THROUGH); err != nil {
		return fmt.Errorf("state: replace %s: %w", to, err)
	}
	return nil
}
