//go:build linux

package lan

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/diagagent/diagagent/internal/netsnmptest"
)

// StartAgent runs diagagent for id k (0-based) in host k's namespace; its
// JSON log goes to agent<k+1>.log and its status changes to Events.
func (c *Cluster) StartAgent(k int) error { return c.StartAgentWith(k, c.conf) }

// StartAgentWith is StartAgent from the configuration file conf, in which
// host k is the k-th node (WriteConfig).
func (c *Cluster) StartAgentWith(k int, conf string) error { return c.startAgent(k, c.Bin, conf) }

// StartAgentBin is StartAgent with another diagagent binary, such as an
// older release's: one LAN of mixed versions.
func (c *Cluster) StartAgentBin(k int, bin string) error { return c.startAgent(k, bin, c.conf) }

// CLI runs a diagagent command (members, nodes, reachability...) from the
// last host, the stations' and printers', against agent at, with the
// cluster's configuration file; it returns what it printed.
func (c *Cluster) CLI(at int, args ...string) (string, error) {
	full := append([]string{"netns", "exec", c.Net.Hosts[len(c.Net.Hosts)-1], c.Bin}, args...)
	full = append(full, "-config", c.conf, "-agent", fmt.Sprintf("%s:%d", c.Net.Addrs[at], c.port()))
	out, err := exec.Command("ip", full...).CombinedOutput()
	return string(out), err
}

// StateDir is agent k's state directory (the file's state_dir).
func (c *Cluster) StateDir(k int) string { return filepath.Join(c.Dir, "state"+strconv.Itoa(k)) }

// startAgent runs binary bin as agent k with configuration file conf.
func (c *Cluster) startAgent(k int, bin, conf string) error {
	if c.agents[k] != nil {
		return fmt.Errorf("lan: agent %d is already running", k+1)
	}
	p, err := StartLogged(c.Net.Hosts[k], filepath.Join(c.Dir, fmt.Sprintf("agent%d.log", k+1)), c.record,
		bin, "-config", conf, "-id", strconv.Itoa(k))
	if err != nil {
		return err
	}
	c.agents[k] = p
	return nil
}

// StartAgents runs every agent and waits until each answers snmpwalk.
func (c *Cluster) StartAgents(timeout time.Duration) error {
	for k := range c.agents {
		if err := c.StartAgent(k); err != nil {
			return err
		}
	}
	for k := range c.agents {
		if err := c.AwaitAnswer(k, timeout); err != nil {
			return err
		}
	}
	return nil
}

// AwaitAnswer waits until agent k answers a walk of its diagTree.
func (c *Cluster) AwaitAnswer(k int, timeout time.Duration) error {
	_, err := c.Poll(timeout, func() bool {
		_, err := c.Statuses(k)
		return err == nil
	})
	if err != nil {
		return fmt.Errorf("lan: agent %d does not answer: %w", k+1, err)
	}
	return nil
}

// StopAgent ends agent k with SIGTERM; its host stays up (partial).
func (c *Cluster) StopAgent(k int) error {
	p := c.agents[k]
	if p == nil {
		return fmt.Errorf("lan: agent %d is not running", k+1)
	}
	c.agents[k] = nil
	return p.Stop(5 * time.Second)
}

// KillAgent ends agent k with SIGKILL, as a crash would; StartAgent runs it
// again on the state it had saved.
func (c *Cluster) KillAgent(k int) error {
	p := c.agents[k]
	if p == nil {
		return fmt.Errorf("lan: agent %d is not running", k+1)
	}
	c.agents[k] = nil
	return p.Kill()
}

// Agent returns agent k's process, nil when it is not running.
func (c *Cluster) Agent(k int) *Proc { return c.agents[k] }

// StartPrinter runs net-snmp's snmpd in the printer's namespace, answering
// the community "printers", and waits until it answers.
func (c *Cluster) StartPrinter() error {
	if c.printer != nil {
		return fmt.Errorf("lan: the printer is already running")
	}
	addr := c.Net.Addrs[c.Agents].String()
	conf := filepath.Join(c.Dir, "printer-snmpd.conf")
	listen := "udp:" + addr + ":161"
	for _, p := range c.PrinterPorts {
		listen += fmt.Sprintf(",udp:%s:%d", addr, p)
	}
	lines := fmt.Sprintf("agentaddress %s\nrocommunity printers 198.18.0.0/16\n", listen)
	if err := os.WriteFile(conf, []byte(lines), 0o600); err != nil {
		return fmt.Errorf("lan: %w", err)
	}
	bin, err := netsnmptest.Find("snmpd")
	if err != nil {
		return err
	}
	c.printer, err = StartLogged(c.Net.Hosts[c.Agents], filepath.Join(c.Dir, "printer.log"), nil, "env", "MIBS=",
		"SNMP_PERSISTENT_DIR="+filepath.Join(c.Dir, "printer-persist"), bin, "-f", "-Lo", "-C", "-I", "-smux", "-c", conf)
	if err != nil {
		return err
	}
	_, err = c.Poll(10*time.Second, func() bool {
		_, err := c.snmp("snmpget", "printers", addr+":161", "-Oqv", ".1.3.6.1.2.1.1.3.0")
		return err == nil
	})
	return err
}

// StopPrinter ends the printer's snmpd; the host still answers ping.
func (c *Cluster) StopPrinter() error {
	if c.printer == nil {
		return fmt.Errorf("lan: the printer is not running")
	}
	p := c.printer
	c.printer = nil
	return p.Stop(5 * time.Second)
}
