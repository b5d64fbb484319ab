// Package netsnmptest runs net-snmp's own programs (snmpd, snmptrapd and the
// command-line tools) for tests: each on a loopback address the test chose,
// with a private configuration, stopped by PID when the test ends. A missing
// program fails the test with the command that installs it; nothing skips.
package netsnmptest
