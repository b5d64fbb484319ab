package config

import (
	"fmt"
	"strings"
)

// ManPage renders diagagent(8) in roff (man macros) from the key table, so
// the manual lists every key with its default, variable and flag exactly as
// Keys(parts) describes them. version and date (YYYY-MM-DD) go in the title line.
func ManPage(parts Defaults, version, date string) string {
	var b strings.Builder
	w := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	w(`.TH DIAGAGENT 8 "%s" "diagagent %s" "System Administration"`, roff(date), roff(version))
	w(".SH NAME")
	w(`diagagent \- distributed fault\-management agent (Hi\-ADSD, vCube, DIAGNOSIS\-MIB)`)
	w(".SH SYNOPSIS")
	w(`.B diagagent`)
	w(`[\fB\-config\fR \fIfile\fR] [\fB\-config.check\fR] [\fB\-version\fR] [\fB\-\fIkey\fR \fIvalue\fR]...`)
	w(".SH DESCRIPTION")
	w("One agent runs on every workstation of a LAN, all with the same node list.")
	w("The agents test each other over SNMP, falling back to ICMP echo (a host that answers ping")
	w("but not SNMP is partial), share what they learn with the Hi\\-ADSD or vCube diagnosis")
	w("algorithm, and serve the view of every node in the DIAGNOSIS\\-MIB, so")
	w(`.B snmpwalk`)
	w("on any workstation shows the state of every node. Each new event goes to the management")
	w("station as an SNMP notification. Devices that run no agent (printers) are tested only.")
	w(".SH OPTIONS")
	w(".TP")
	w(`.BI \-config " file"`)
	w(`The YAML configuration (default \fI%s\fR).`, roff(DefaultPath))
	w(".TP")
	w(`.B \-config.check`)
	w("Validate the configuration and the state directory, print one line and exit: 0 when valid, 2 with one line naming the first wrong key.")
	w(".TP")
	w(`.B \-version`)
	w("Print the version and exit.")
	w(".TP")
	w(`.BI \- key " value"`)
	w("Set any key below that is not a list, e.g. \\fB\\-snmp.listen\\fR auto.")
	w(".SH COMMANDS")
	w("keyring, members, check, maintenance and nodes take \\fB\\-config\\fR for their credentials and \\fB\\-agent\\fR \\fIhost:port\\fR for the agent to ask (this host's by default); \\fB\\-h\\fR lists its flags.")
	for _, c := range Commands {
		w(".TP")
		w(`.B diagagent %s`, roff(c.Usage))
		w("%s", roff(c.Doc))
	}
	w(".SH CONFIGURATION")
	w("Each key is read from the file, then from its environment variable, then from its flag; the last one given wins.")
	w("Lists (the node list, SNMPv3 users) come from the file only.")
	for _, k := range Keys(parts) {
		w(".TP")
		w(`.B %s`, roff(k.Name))
		w("%s.", roff(k.Doc))
		if k.FileOnly {
			w("File only; each entry has:")
			for _, f := range structFields(k.typ.Elem()) {
				w(".RS")
				w(".TP")
				w(`.B %s`, roff(f.name))
				w("%s", roff(f.doc))
				w(".RE")
			}
			continue
		}
		def := "(empty)"
		if k.Default != "" {
			def = `\fB` + roff(k.Default) + `\fR`
		}
		w(`Default %s; variable \fB%s\fR, flag \fB\-%s\fR.`, def, roff(k.Env), roff(k.Name))
	}
	w(".SH SIGNALS")
	w("SIGTERM and SIGINT stop the agent: it saves its state and sends the notifications still queued for a moment.")
	w("SIGHUP (what systemctl reload sends, after the unit stages the files again) reads the configuration and the keyring again: an edited node list and keyring become the next version of the list, which every agent adopts. A file that does not load is logged and changes nothing; other keys are read at start only.")
	w(".SH FILES")
	w(".TP")
	w(`.I %s`, roff(DefaultPath))
	w("The configuration; it holds communities and pass phrases, keep it readable by root only.")
	w(".TP")
	w(".I /etc/diagagent/keyring")
	w("The cluster keys (keyring), one per line, the first the one sent with; the same on every agent, readable by root only. Keys installed with diagagent keyring are kept under state_dir.")
	w(".TP")
	w(".I /var/lib/diagagent")
	w("The state that survives a restart (state_dir): event counters and table, the station, the SNMP engine ID and boots, the node list as changed on the running LAN, the cluster keys installed or removed with diagagent keyring.")
	w(".TP")
	w(".I /usr/share/snmp/mibs/DIAGNOSIS\\-MIB.txt")
	w("The MIB, where net\\-snmp's tools look.")
	w(".SH EXAMPLES")
	w(".nf")
	w(`snmpwalk \-v2c \-c public \-m DIAGNOSIS\-MIB 192.0.2.1 diagnosisMIB`)
	w(`diagagent \-config /etc/diagagent/diagagent.yaml \-config.check`)
	w(".fi")
	w(".SH SEE ALSO")
	w(".BR snmpwalk (1),")
	w(".BR snmptrapd (8),")
	w(".BR snmpd (8)")
	return b.String()
}

// roff escapes text for a man page: backslashes, and hyphens, which roff
// would otherwise print as typographic dashes; a leading dot or quote would
// start a request.
func roff(s string) string {
	s = strings.ReplaceAll(s, `\`, `\e`)
	s = strings.ReplaceAll(s, "-", `\-`)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// Command is one of diagagent's commands beside the agent itself: how it is
// typed and what it does, for the manual page and diagagent help.
type Command struct {
	Name, Usage, Doc string
}

// Commands are diagagent's commands, in the order help lists them.
var Commands = []Command{
	{"keygen", "keygen", "Print a new random cluster key, for the keyring file."},
	{"keyring", "keyring -install|-use|-remove KEY | -list", "Rotate the cluster key on every agent, from any one, with no restart."},
	{"members", "members [-format table|json] [-watch D] [-versions]", "One row per node, as an agent sees the cluster; -versions asks every agent its version too."},
	{"reachability", "reachability [-format table|json]", "Ask every agent which nodes it cannot reach while other agents do: one row per such node, with those agents (a firewall or ACL between them)."},
	{"check", "check [-warning N] [-critical N] [-node ID]", "A monitoring plugin: one line with performance data, exit 0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN."},
	{"maintenance", "maintenance -node ID -for D | -until TIME | -end", "Open, move or end a node's maintenance window, and wait until every agent that answers holds it: the node is still tested, and not notified until the window ends."},
	{"nodes", "nodes -add ADDRESS [-name N] [-port P] [-tested-only] [-community C] | -remove ID|NAME", "Add a node to the list, or remove one, through any agent, and wait until every agent that answers holds the change."},
	{"traps", "traps [-listen host:port] [-community C] [-count N] [-for D]", "A management station in a terminal: print the notifications agents send, named by the DIAGNOSIS-MIB (SNMPv1 and v2c traps, and informs)."},
	{"stage", "stage -config F -to DIR", "Copy the configuration and the keyring for the service's user (the unit runs it before each start and reload)."},
	{"service", "service install [-config F] | remove | start | stop | reload", "Control the Windows service (Windows only)."},
	{"version", "version", "Print the version."},
	{"help", "help", "Print the commands and the agent's flags."},
}
