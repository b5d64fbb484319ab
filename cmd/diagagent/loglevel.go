package main

import "strings"

// logLevelOf reads the level of one line of the agent's log, text or
// JSON: "error" (fatal and panic too), "warning", or "info" for the rest.
// A line with no level is one the agent prints before its log exists (a
// configuration that does not load): an error. The Windows service maps
// it to the event log's types.
func logLevelOf(line string) string {
	for _, lvl := range []string{"panic", "fatal", "error", "warning", "info", "debug", "trace"} {
		if strings.Contains(line, "level="+lvl) || strings.Contains(line, `"level":"`+lvl+`"`) {
			switch lvl {
			case "panic", "fatal", "error":
				return "error"
			case "warning":
				return "warning"
			}
			return "info"
		}
	}
	return "error"
}
