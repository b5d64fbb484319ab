package snmp

import (
	"net"
	"sync"
	"testing"
	"time"

	"github.com/gosnmp/gosnmp"

	"github.com/diagagent/diagagent/mib"
)

// TestSetDoesNotHoldUpReads sets a window whose callback waits (as a SET
// waits for the state file to reach a slow disk) and reads the tree from
// another manager meanwhile: the read is answered while the SET is held,
// and the SET is answered once the callback returns.
func TestSetDoesNotHoldUpReads(t *testing.T) {
	held, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	h := startHarness(t, func(c *Config) {
		c.OnMaintenance = func(uint32, time.Time) error {
			close(held)
			<-release
			return nil
		}
	})
	host, port, err := net.SplitHostPort(h.addr)
	if err != nil {
		t.Fatal(err)
	}
	manager := func(community string) *gosnmp.GoSNMP {
		g := &gosnmp.GoSNMP{Target: host, Port: mustPort(t, port), Version: gosnmp.Version2c, Community: community,
			Timeout: 5 * time.Second, Retries: 0}
		if err := g.Connect(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = g.Conn.Close() })
		return g
	}
	writer, reader := manager(rwCommunity), manager(roCommunity)
	t.Cleanup(free) // before the harness's Close, which waits for the SET
	set := make(chan error, 1)
	go func() {
		_, err := writer.Set([]gosnmp.SnmpPDU{{Name: mib.TreeCell(mib.ColNodeMaintFor, 2), Type: gosnmp.Gauge32, Value: uint(60)}})
		set <- err
	}()
	<-held
	res, err := reader.Get([]string{mib.TreeCell(mib.ColNodeID, 1)})
	if err != nil || res.Error != gosnmp.NoError || len(res.Variables) != 1 {
		t.Fatalf("a GET while a SET waits: %v %+v", err, res)
	}
	select {
	case err := <-set:
		t.Fatalf("the SET was answered (%v) before its callback returned", err)
	default:
	}
	free()
	if err := <-set; err != nil {
		t.Fatalf("the SET: %v", err)
	}
}
