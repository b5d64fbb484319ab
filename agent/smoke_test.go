package agent

import "testing"

func TestSmoke(t *testing.T) {
	h := startHarness(t, nil)
	t.Log(h.must(t, "snmpget", "-v2c", "-c", "public", h.addr, "1.3.6.1.2.1.1.1.0", "1.3.6.1.2.1.1.3.0", "1.3.6.1.4.1.200.1.1.1.2.2"))
	t.Log(h.must(t, "snmpwalk", "-v2c", "-c", "public", h.addr, "1.3.6.1"))
	t.Log(h.must(t, "snmpget", "-v3", "-l", "authPriv", "-u", "privsha", "-a", "SHA", "-A", authPass, "-x", "AES", "-X", privPass, h.addr, "1.3.6.1.2.1.1.1.0"))
}
