//go:build linux

package main

import "fmt"

// berReader walks the few BER elements at the head of an SNMP message.
type berReader struct {
	b []byte
}

// header reads one tag and definite length, returning the content length.
func (r *berReader) header(tag byte) (int, error) {
	if len(r.b) < 2 {
		return 0, fmt.Errorf("%w: truncated at tag %#x", ErrBadReply, tag)
	}
	if r.b[0] != tag {
		return 0, fmt.Errorf("%w: tag %#x, want %#x", ErrBadReply, r.b[0], tag)
	}
	n, l := int(r.b[1]), 2
	if n&0x80 != 0 {
		k := n & 0x7f
		if k == 0 || k > 3 || len(r.b) < 2+k {
			return 0, fmt.Errorf("%w: bad length form", ErrBadReply)
		}
		n = 0
		for _, c := range r.b[2 : 2+k] {
			n = n<<8 | int(c)
		}
		l += k
	}
	if len(r.b) < l+n {
		return 0, fmt.Errorf("%w: length %d beyond datagram", ErrBadReply, n)
	}
	r.b = r.b[l:]
	return n, nil
}

// enter steps into a constructed element with the given tag.
func (r *berReader) enter(tag byte) error {
	_, err := r.header(tag)
	return err
}

// skip passes over one primitive element with the given tag.
func (r *berReader) skip(tag byte) error {
	n, err := r.header(tag)
	if err != nil {
		return err
	}
	r.b = r.b[n:]
	return nil
}

// integer reads one INTEGER of at most 8 content bytes.
func (r *berReader) integer() (int64, error) {
	n, err := r.header(0x02)
	if err != nil {
		return 0, err
	}
	if n == 0 || n > 8 {
		return 0, fmt.Errorf("%w: integer of %d bytes", ErrBadReply, n)
	}
	v := int64(int8(r.b[0]))
	for _, c := range r.b[1:n] {
		v = v<<8 | int64(c)
	}
	r.b = r.b[n:]
	return v, nil
}
