package mib

import (
	"fmt"
	"slices"
)

// NodeRanges writes NodeIDs as ranges, as diagCauseNodeList holds them, "3,9,12-14", in at most limit
// octets: where they do not fit, it ends in "...".
func NodeRanges(ids []uint32, limit int) string {
	ids = slices.Clone(ids)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	var b []byte
	for k := 0; k < len(ids); {
		j := k
		for j+1 < len(ids) && ids[j+1] == ids[j]+1 {
			j++
		}
		part := fmt.Sprint(ids[k])
		if j > k {
			part += fmt.Sprintf("-%d", ids[j])
		}
		if len(b) > 0 {
			part = "," + part
		}
		if len(b)+len(part) > limit-3 && j+1 < len(ids) || len(b)+len(part) > limit {
			return string(b) + "..."
		}
		b = append(b, part...)
		k = j + 1
	}
	return string(b)
}
