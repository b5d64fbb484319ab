package mib

import (
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// ErrDateAndTime is wrapped by ParseDateAndTime's errors.
var ErrDateAndTime = errors.New("not a DateAndTime")

// DateAndTime encodes t as the 11-octet DateAndTime of SNMPv2-TC, in UTC
// (offset +0:0); its first 8 octets are the form without an offset.
func DateAndTime(t time.Time) []byte {
	t = t.UTC()
	b := make([]byte, 11)
	binary.BigEndian.PutUint16(b, uint16(t.Year()))
	b[2], b[3], b[4] = byte(t.Month()), byte(t.Day()), byte(t.Hour())
	b[5], b[6], b[7] = byte(t.Minute()), byte(t.Second()), byte(t.Nanosecond()/100_000_000)
	b[8] = '+'
	return b
}

// NoDateAndTime is the zero time, eight octets of zero: "none".
var NoDateAndTime = make([]byte, 8)

// ParseDateAndTime reads a DateAndTime of 8 octets (in loc, having no
// offset) or 11 (with its offset from UTC), and returns it in UTC. Eight
// octets of zero are the zero time.
func ParseDateAndTime(b []byte, loc *time.Location) (time.Time, error) {
	if len(b) != 8 && len(b) != 11 {
		return time.Time{}, fmt.Errorf("%w: %d octets, want 8 or 11", ErrDateAndTime, len(b))
	}
	if len(b) == 8 && string(b) == string(NoDateAndTime) {
		return time.Time{}, nil
	}
	year := int(b[0])<<8 | int(b[1])
	mon, day, hour, minute, sec, deci := int(b[2]), int(b[3]), int(b[4]), int(b[5]), int(b[6]), int(b[7])
	if mon < 1 || mon > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || sec > 60 || deci > 9 {
		return time.Time{}, fmt.Errorf("%w: a field is out of range: % x", ErrDateAndTime, b)
	}
	if len(b) == 11 {
		if (b[8] != '+' && b[8] != '-') || b[9] > 14 || b[10] > 59 {
			return time.Time{}, fmt.Errorf("%w: bad offset from UTC: % x", ErrDateAndTime, b[8:])
		}
		off := int(b[9])*3600 + int(b[10])*60
		if b[8] == '-' {
			off = -off
		}
		loc = time.FixedZone("", off)
	}
	return time.Date(year, time.Month(mon), day, hour, minute, sec, deci*int(time.Second/10), loc).UTC(), nil
}
