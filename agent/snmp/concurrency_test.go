//go:build integration && linux

package snmp

import (
	"strings"
	"sync"
	"testing"

	"github.com/diagagent/diagagent/mib"
)

// TestConcurrentManagers runs several net-snmp managers at once, community
// walks next to SNMPv3 authPriv requests, and checks every answer.
func TestConcurrentManagers(t *testing.T) {
	h := startHarness(t, func(c *Config) { c.Workers = 2 })
	v3 := usmArgs("privsha256", "authPriv", "SHA-256", "AES")
	want := h.must(t, "snmpbulkwalk", h.v2(roCommunity, "-Cr5", mib.DiagnosisMIB)...)
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for i := range 6 {
		wg.Go(func() {
			for range 3 {
				if i%2 == 0 {
					out, err := h.run(t, "snmpbulkwalk", h.v2(roCommunity, "-Cr5", mib.DiagnosisMIB)...)
					if err != nil || out != want {
						errs <- "walk: " + out
					}
					continue
				}
				out, err := h.run(t, "snmpget", h.v3(v3, mib.SysName0, mib.NMSID0)...)
				if err != nil || !strings.Contains(out, "127.0.0.9") {
					errs <- "v3 get: " + out
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
