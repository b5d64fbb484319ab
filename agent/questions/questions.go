// Package questions holds the questions an agent asked other agents about a
// node it found down (a second vantage point: hiadsd/vantage.go), until each
// is answered, refused, or too old to matter. The questions one test asked
// end on one channel, which the test reads: each answer that names a status,
// then, when every agent asked refused, hiadsd.Unknown, then its close.
// agent/daemon sends the questions and takes the answers off the wire; this
// package only keeps the book, so that an answer forged or late (a nonce no
// test is waiting for) moves nothing.
package questions

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// Key names one question: the agent asked (To), the node asked about (Node)
// and the nonce its answer must carry.
type Key struct {
	To, Node int
	Nonce    uint32
}

// test is the questions one test asked: how many are still open, how many
// were refused, of how many asked, and until when an answer may matter.
type test struct {
	out                  chan hiadsd.Status
	left, refused, asked int
	until                time.Time
}

// Book is the questions waiting for an answer. Its zero value is empty and
// ready; it is safe from any goroutine.
type Book struct {
	mu      sync.Mutex
	waiting map[Key]*test
}

// Ask records a test's questions about node to each agent of to, answers
// to which matter until until, and first forgets those whose time has
// passed (at now). It returns their keys, each with a fresh nonce, and the
// channel the answers come on: closed at once when to is empty.
func (b *Book) Ask(node int, to []int, now, until time.Time) ([]Key, <-chan hiadsd.Status) {
	a := &test{out: make(chan hiadsd.Status, len(to)+1), left: len(to), asked: len(to), until: until}
	keys := make([]Key, len(to))
	b.mu.Lock()
	defer b.mu.Unlock()
	b.purge(now)
	if b.waiting == nil {
		b.waiting = make(map[Key]*test)
	}
	for i, h := range to {
		keys[i] = Key{To: h, Node: node, Nonce: rand.Uint32()}
		b.waiting[keys[i]] = a
	}
	if len(to) == 0 {
		close(a.out)
	}
	return keys, a.out
}

// Answer ends question k with st, what the agent asked found (nothing sent
// when st is hiadsd.Unknown); refused ends it as the agent's refusal. A key
// no test waits for is ignored.
func (b *Book) Answer(k Key, st hiadsd.Status, refused bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.resolve(k, st, refused)
}

// resolve is Answer with b.mu held; the test's last question closes its
// channel, after hiadsd.Unknown if every one was refused.
func (b *Book) resolve(k Key, st hiadsd.Status, refused bool) {
	a, ok := b.waiting[k]
	if !ok {
		return
	}
	delete(b.waiting, k)
	switch {
	case refused:
		a.refused++
	case st != hiadsd.Unknown:
		a.out <- st // buffered for every question
	}
	if a.left--; a.left == 0 {
		if a.refused == a.asked {
			a.out <- hiadsd.Unknown
		}
		close(a.out)
	}
}

// purge ends, unanswered, the questions whose time passed before now.
func (b *Book) purge(now time.Time) {
	for k, a := range b.waiting {
		if now.After(a.until) {
			b.resolve(k, hiadsd.Unknown, false)
		}
	}
}
