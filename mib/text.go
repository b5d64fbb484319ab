package mib

import (
	"embed"
	"io/fs"
	"path/filepath"
)

// ModuleName is the name of the module in DIAGNOSIS-MIB.txt.
const ModuleName = "DIAGNOSIS-MIB"

// FileName is the name of the MIB file, as net-snmp and libsmi look it up.
const FileName = "DIAGNOSIS-MIB.txt"

//go:embed DIAGNOSIS-MIB.txt
var moduleText string

//go:embed DIAGNOSIS-MIB.txt ietf/*.txt
var moduleFiles embed.FS

// Text returns the DIAGNOSIS-MIB module source, for the daemon to serve or install.
func Text() string {
	return moduleText
}

// Files returns the MIB file and the IETF stand-ins under ietf/, read-only.
func Files() fs.FS {
	return moduleFiles
}

// NetSNMPArgs returns net-snmp command options that load DIAGNOSIS-MIB and
// SNMPv2-MIB from dir (a copy of this package's directory) and dir/ietf.
// net-snmp gives later directories precedence and "-M -" puts these before the
// system ones, so a system copy of any module wins over the stand-ins.
func NetSNMPArgs(dir string) []string {
	return []string{
		"-M", "-" + filepath.Join(dir, "ietf") + string(filepath.ListSeparator) + dir,
		"-m", ModuleName + ":SNMPv2-MIB",
	}
}

// SMIPath returns a SMIPATH value for libsmi tools (smilint, smidump) that adds
// dir and dir/ietf after the system path. libsmi takes the first module it
// finds and a leading separator appends, so a system copy wins here too.
func SMIPath(dir string) string {
	sep := string(filepath.ListSeparator)
	return sep + dir + sep + filepath.Join(dir, "ietf")
}
