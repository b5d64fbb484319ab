//go:build integration && linux

package snmp

import (
	"context"
	"net/netip"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// TestWalkWithTheMIBLoaded walks the agent with net-snmp reading
// mib/DIAGNOSIS-MIB.txt (and the IETF stand-ins in mib/ietf), so every served
// type and enumeration is checked against the MIB: net-snmp flags a value whose
// type differs from the SYNTAX with "Wrong Type".
func TestWalkWithTheMIBLoaded(t *testing.T) {
	h := startHarness(t, nil)
	snap := testSnapshot()
	snap.Nodes[2].Addr = netip.MustParseAddr("2001:db8::3") // an IPv6 node: nodeAD 0.0.0.0, nodeAddr its address
	if err := h.r.Publish(snap); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	dir := t.TempDir()
	cmd := exec.CommandContext(ctx, "snmpwalk", "-M", "+../../mib:../../mib/ietf", "-m", "DIAGNOSIS-MIB",
		"-v2c", "-c", roCommunity, "-t", "1", "-r", "0", h.addr, "DIAGNOSIS-MIB::diagnosisMIB")
	cmd.Env = []string{"SNMPCONFPATH=" + dir, "SNMP_PERSISTENT_DIR=" + dir, "HOME=" + dir}
	raw, err := cmd.CombinedOutput()
	out := string(raw)
	if err != nil {
		t.Fatalf("snmpwalk: %v\n%s", err, out)
	}
	for _, want := range []string{
		"DIAGNOSIS-MIB::nodeStatus.2 = INTEGER: faulty(1)",
		"DIAGNOSIS-MIB::nodeStatus.3 = INTEGER: partial(2)",
		"DIAGNOSIS-MIB::nodeAD.1 = IpAddress: 127.0.0.1",
		"DIAGNOSIS-MIB::nodeTestedOnly.3 = INTEGER: true(1)",
		"DIAGNOSIS-MIB::nodeHowLearned.2 = INTEGER: learned(2)",
		"DIAGNOSIS-MIB::hiADSDisUP.0 = STRING: 1",
		"DIAGNOSIS-MIB::nmsID.0 = IpAddress: 127.0.0.9",
		"DIAGNOSIS-MIB::diagEventTime.7 = STRING: 2026-11-21,6:0:0.0,+0:0",
		"DIAGNOSIS-MIB::diagEventDetector.7 = INTEGER: 3",
		"DIAGNOSIS-MIB::diagEventSource.7 = INTEGER: 2",
		"DIAGNOSIS-MIB::nodeAddrType.1 = INTEGER: ipv4(1)",
		"DIAGNOSIS-MIB::nodeAddr.1 = Hex-STRING: 7F 00 00 01",
		"DIAGNOSIS-MIB::nodeAD.3 = IpAddress: 0.0.0.0",
		"DIAGNOSIS-MIB::nodeAddrType.3 = INTEGER: ipv6(2)",
		"DIAGNOSIS-MIB::nodeAddr.3 = Hex-STRING: 20 01 0D B8 00 00 00 00 00 00 00 00 00 00 00 03",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("walk lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Wrong Type") {
		t.Errorf("a served type differs from the MIB:\n%s", out)
	}
}
