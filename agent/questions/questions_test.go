package questions

import (
	"slices"
	"testing"
	"time"

	"github.com/diagagent/diagagent/hiadsd"
)

// drain reads a closed channel whole; it fails the test if ch is not
// closed yet (a test that waits on it would wait for ever).
func drain(t *testing.T, ch <-chan hiadsd.Status) []hiadsd.Status {
	t.Helper()
	var got []hiadsd.Status
	for {
		select {
		case st, ok := <-ch:
			if !ok {
				return got
			}
			got = append(got, st)
		default:
			t.Fatalf("the answers' channel is still open after %v", got)
		}
	}
}

// TestBookEndsEachTestOnce: each answer that names a status is handed to
// the test that asked; the last question closes its channel, after
// hiadsd.Unknown when every agent asked refused; an answer with a nonce no
// test waits for, or a second one, moves nothing.
func TestBookEndsEachTestOnce(t *testing.T) {
	now := time.Unix(1e9, 0)
	for _, c := range []struct {
		name    string
		answers []hiadsd.Status // one per agent asked; Unknown with refused[i]: a refusal
		refused []bool
		want    []hiadsd.Status
	}{
		{"two answers", []hiadsd.Status{hiadsd.Partial, hiadsd.FaultFree}, []bool{false, false}, []hiadsd.Status{hiadsd.Partial, hiadsd.FaultFree}},
		{"every one refused", []hiadsd.Status{hiadsd.Unknown, hiadsd.Unknown}, []bool{true, true}, []hiadsd.Status{hiadsd.Unknown}},
		{"one refused, one silent", []hiadsd.Status{hiadsd.Unknown, hiadsd.Unknown}, []bool{true, false}, nil},
		{"one refused, one answer", []hiadsd.Status{hiadsd.Unknown, hiadsd.Faulty}, []bool{true, false}, []hiadsd.Status{hiadsd.Faulty}},
	} {
		var b Book
		keys, out := b.Ask(5, []int{1, 2}, now, now.Add(time.Second))
		if len(keys) != 2 || keys[0].To != 1 || keys[1].To != 2 || keys[0].Node != 5 {
			t.Fatalf("%s: keys %+v", c.name, keys)
		}
		forged := keys[0]
		forged.Nonce++
		b.Answer(forged, hiadsd.Faulty, false)
		for i, k := range keys {
			b.Answer(k, c.answers[i], c.refused[i])
			b.Answer(k, hiadsd.Faulty, false) // again: ignored
		}
		if got := drain(t, out); !slices.Equal(got, c.want) {
			t.Errorf("%s: answers %v, want %v", c.name, got, c.want)
		}
		if len(b.waiting) != 0 {
			t.Errorf("%s: %d questions still wait", c.name, len(b.waiting))
		}
	}
}

// TestBookForgetsOldQuestions: a test that asked nobody gets a closed
// channel at once, and questions whose time passed end unanswered at the
// next test's asking, while the next test's questions still wait.
func TestBookForgetsOldQuestions(t *testing.T) {
	var b Book
	if _, out := b.Ask(3, nil, time.Now(), time.Now()); len(drain(t, out)) != 0 {
		t.Fatal("a test that asked nobody got an answer")
	}
	now := time.Unix(1e9, 0)
	_, old := b.Ask(3, []int{1, 2}, now, now.Add(time.Second))
	keys, out := b.Ask(4, []int{1}, now.Add(2*time.Second), now.Add(3*time.Second))
	if got := drain(t, old); len(got) != 0 {
		t.Fatalf("questions past their time: answers %v, want none", got)
	}
	if len(b.waiting) != 1 {
		t.Fatalf("%d questions wait, want the new test's one", len(b.waiting))
	}
	b.Answer(keys[0], hiadsd.Partial, false)
	if got := drain(t, out); !slices.Equal(got, []hiadsd.Status{hiadsd.Partial}) {
		t.Fatalf("the new test's answers: %v", got)
	}
}
