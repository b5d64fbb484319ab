//go:build linux

package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Memory is a process's resident set as /proc/PID/status reports it.
type Memory struct {
	RSSKiB int // VmRSS: resident now
	HWMKiB int // VmHWM: peak resident
}

// ReadMemory reads VmRSS and VmHWM of pid.
func ReadMemory(pid int) (Memory, error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, fmt.Errorf("memory of pid %d: %w", pid, err)
	}
	defer f.Close()
	var m Memory
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		kib, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(val), " kB"))
		switch key {
		case "VmRSS":
			m.RSSKiB = kib
		case "VmHWM":
			m.HWMKiB = kib
		}
	}
	if err := sc.Err(); err != nil {
		return Memory{}, fmt.Errorf("memory of pid %d: %w", pid, err)
	}
	if m.RSSKiB == 0 {
		return Memory{}, fmt.Errorf("memory of pid %d: no VmRSS line", pid)
	}
	return m, nil
}
