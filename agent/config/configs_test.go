package config

import (
	"bufio"
	"flag"
	"fmt"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/diagagent/diagagent/agent/parts"
)

// configsDir holds the example configurations and the systemd unit.
const configsDir = "../../configs"

// TestExampleConfigs loads and validates every YAML file in configs/.
func TestExampleConfigs(t *testing.T) {
	files, err := filepath.Glob(filepath.Join(configsDir, "*.yaml"))
	if err != nil || len(files) < 2 {
		t.Fatalf("glob: %v, %v", files, err)
	}
	for _, f := range files {
		if _, err := Load(parts.Defaults(), f, nil, nil); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestExampleShowsEveryKey checks that configs/diagagent.yaml writes out every key.
func TestExampleShowsEveryKey(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(configsDir, "diagagent.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	file, err := readYAML("diagagent.yaml", data)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Keys(parts.Defaults()) {
		if !isSet(file, k.Name) {
			t.Errorf("configs/diagagent.yaml does not show %s", k.Name)
		}
	}
}

// TestLocalCluster checks that each demo agent, told its id or its listen address,
// finds its own loopback address, port and state directory.
func TestLocalCluster(t *testing.T) {
	path := filepath.Join(configsDir, "cluster-local.yaml")
	for id := range 8 {
		own := netip.MustParseAddrPort(fmt.Sprintf("127.0.0.%d:1161", id+1))
		for _, args := range [][]string{{"-id", fmt.Sprint(id)}, {"-snmp.listen", own.String()}} {
			fs, _ := parseFlags(t, args...)
			c, err := Load(parts.Defaults(), path, nil, fs)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ResolveID(c, addrs("127.0.0.1"))
			if err != nil || got != id || c.SNMPListen(got) != own {
				t.Errorf("%v: id %d (%v), listen %v; want %d on %v", args, got, err, c.SNMPListen(got), id, own)
			}
			if dir := c.StateDirFor(got); dir != fmt.Sprintf("/tmp/diagagent-demo/node%d", id) {
				t.Errorf("%v: state dir %s", args, dir)
			}
		}
	}
}

// TestUnitFlags checks that the systemd unit's ExecStart arguments are flags the daemon has.
func TestUnitFlags(t *testing.T) {
	f, err := os.Open(filepath.Join(configsDir, "diagagent.service"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	found := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok && !strings.HasPrefix(k, "#") {
			found[k] = v
		}
	}
	args := strings.Fields(found["ExecStart"])
	if len(args) < 3 {
		t.Fatalf("ExecStart = %q", found["ExecStart"])
	}
	fs := flag.NewFlagSet("unit", flag.ContinueOnError)
	if fl := RegisterFlags(fs, parts.Defaults()); fs.Parse(args[1:]) != nil || !strings.HasSuffix(fl.Path, "diagagent.yaml") {
		t.Errorf("ExecStart arguments %q do not parse", args[1:])
	}
	for _, cap := range []string{"CAP_NET_RAW", "CAP_NET_BIND_SERVICE"} {
		if !strings.Contains(found["AmbientCapabilities"], cap) {
			t.Errorf("AmbientCapabilities %q lacks %s", found["AmbientCapabilities"], cap)
		}
	}
	if found["StateDirectory"] != "diagagent" || Default(parts.Defaults()).StateDir != "/var/lib/diagagent" {
		t.Errorf("StateDirectory %q does not give the default state_dir %s", found["StateDirectory"], Default(parts.Defaults()).StateDir)
	}
}

// isSet reports whether the dotted key has a value in the settings.
func isSet(settings map[string]any, key string) bool {
	var v any = settings
	for p := range strings.SplitSeq(key, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[p]; !ok {
			return false
		}
	}
	return true
}
