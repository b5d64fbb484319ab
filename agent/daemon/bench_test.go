package daemon

import (
	"context"
	"runtime"
	"testing"

	"github.com/diagagent/diagagent/agent/board"
	"github.com/diagagent/diagagent/agent/notify"
	"github.com/diagagent/diagagent/agent/state"
	"github.com/diagagent/diagagent/hiadsd"
)

// BenchmarkTakePush256 is what one hop of a push costs an agent of a
// 256-node LAN, the N = 256 run of make versus: merging a push that
// changes one node's status, passing it on, and recording the change
// (event row, the served snapshot, the state saved to disk). Every agent
// pays it once per change, at nearly the same moment, on a shared machine.
func BenchmarkTakePush256(b *testing.B) {
	const n = 256
	cfg := testConfig(b, n, hiadsd.VCube, notify.Detected)
	lan, s := newFakeLAN(), &sink{}
	d := newTestDaemon(b, cfg, lan, s, state.State{}, nil)
	d.interval(context.Background()) // every node fault-free
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		st := hiadsd.Faulty // a fault, then its repair, then the next fault...
		if i%2 == 1 {
			st = hiadsd.FaultFree
		}
		d.takePush(ctx, board.Push{From: 129, Cluster: 8, ListVersion: d.list.Version, ListHash: d.list.Hash,
			Entries: []board.PushEntry{{NodeID: 66, Status: st, Counter: uint32(i + 1)}}})
		if got := d.Snapshot().Nodes[65]; got.Status != st {
			b.Fatalf("push %d: node 66 is %v, want %v", i, got.Status, st)
		}
	}
}

// BenchmarkSteadyMinute16 runs a steady minute of a 16-agent LAN on the
// mock network (vCube, rotating plan, push, 1 s interval: 60 rounds) and
// reports what it leaves behind per agent: the heap in use after a
// collection, in bytes, and the goroutines, against what there was before
// the agents started. A leak, or a view or journal that grows with time,
// shows here before it shows in make versus's RSS.
func BenchmarkSteadyMinute16(b *testing.B) {
	const n = 16
	var heap, goroutines float64
	for b.Loop() {
		before, g0 := heapInUse(), runtime.NumGoroutine()
		m := newMockNet(b, n, hiadsd.VCube, notify.Owner)
		m.settled(n)
		for range 60 {
			m.round()
		}
		heap += float64(heapInUse()-before) / n
		goroutines += float64(runtime.NumGoroutine()-g0) / n
		runtime.KeepAlive(m)
	}
	b.ReportMetric(heap/float64(b.N), "heap-B/agent")
	b.ReportMetric(goroutines/float64(b.N), "goroutines/agent")
}

// heapInUse is the heap in use after a collection.
func heapInUse() int64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return int64(ms.HeapInuse)
}
