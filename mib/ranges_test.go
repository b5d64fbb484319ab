package mib

import "testing"

func TestNodeRanges(t *testing.T) {
	for _, c := range []struct {
		ids   []uint32
		limit int
		want  string
	}{
		{[]uint32{17, 18, 19, 20, 21, 22, 23, 24}, 255, "17-24"},
		{[]uint32{14, 3, 9, 12, 13, 9}, 255, "3,9,12-14"},
		{[]uint32{1, 3, 5, 7, 9, 11}, 9, "1,3,5..."},
		{nil, 255, ""},
	} {
		if got := NodeRanges(c.ids, c.limit); got != c.want || len(got) > c.limit {
			t.Errorf("NodeRanges(%v, %d) = %q, want %q", c.ids, c.limit, got, c.want)
		}
	}
}
