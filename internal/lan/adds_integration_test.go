//go:build integration && linux

package lan

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAddsInARowLAN: one operator adds 100 devices at one agent, one
// after another as fast as diagagent nodes returns (-wait 0), as a script
// adding a building's printers does: five vCube agents with the cluster
// key, the devices a printer's snmpd answering on 100 ports. Every add is
// acknowledged at the id the command read, and every agent then lists all
// 100, fault-free.
func TestAddsInARowLAN(t *testing.T) {
	t.Parallel()
	s := ciSpec(t, "ad", "vcube", 5, true)
	s.Keyring = true
	const n = 100
	for p := 3001; p <= 3000+n; p++ {
		s.PrinterPorts = append(s.PrinterPorts, p)
	}
	c := startCluster(t, s)
	o := &operators{t: t, c: c}
	printer := c.Net.Addrs[c.Agents].String()
	began := time.Now()
	for p := 3001; p <= 3000+n; p++ {
		out, err := o.cli(1, "nodes", "-add", printer, "-port", strconv.Itoa(p), "-tested-only", "-community", "printers",
			"-name", fmt.Sprintf("dev-%d", p), "-wait", "0")
		if err != nil || !strings.Contains(out, "added as node ") {
			t.Fatalf("add %d of %d (port %d): %v\n%s", p-3000, n, p, err, out)
		}
	}
	t.Logf("%d adds at agent 2 acknowledged in %v", n, time.Since(began).Round(time.Millisecond))
	all := nodeIDs(c.Nodes() + n)
	took, err := c.Poll(3*c.Bound()+time.Minute, func() bool { return c.allList(ids(c.Agents), all) })
	if err != nil {
		for k := range c.Agents {
			st, _ := c.Statuses(k)
			t.Logf("agent %d lists %d nodes", k+1, len(st))
		}
		t.Fatalf("every agent lists the %d devices fault-free: %v", n, err)
	}
	t.Logf("every agent lists all %d nodes fault-free %v after the last add", len(all), took.Round(time.Millisecond))
}
