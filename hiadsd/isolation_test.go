package hiadsd

import "testing"

func TestIsolationNeedsTwoSilentTests(t *testing.T) {
	one := []TestResult{{Target: 1, Status: Faulty}}
	two := append(one, TestResult{Target: 2, Status: Faulty})
	mixed := append(one, TestResult{Target: 2, Status: Partial})
	if cutOff(one) || !cutOff(two) || cutOff(mixed) || cutOff(nil) {
		t.Fatalf("cutOff: one %v, two %v, one answered by ping %v, none %v; want false true false false",
			cutOff(one), cutOff(two), cutOff(mixed), cutOff(nil))
	}
	if err := (&Config{N: 4, Isolation: -1}).Validate(); err == nil {
		t.Fatal("negative Isolation accepted")
	}
}
