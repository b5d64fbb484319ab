package traps

import (
	"time"

	"github.com/gosnmp/gosnmp"
)

// engine is what the notifier keeps of a station's authoritative SNMPv3
// engine between informs (RFC 3414 2.3): its ID, boots and time as last
// heard, when they were heard, and the user's keys localized to it. With it
// an inform goes out without a discovery exchange first; a report
// (notInTimeWindow after the station restarted, unknownEngineID after it was
// replaced) makes gosnmp take the new values and resend, and an attempt that
// fails forgets it, so the next one discovers afresh.
type engine struct {
	id            string
	boots, time   uint32
	heard         time.Time
	secret, privK []byte
}

// usm returns the security parameters of an inform to t: the user's, with
// the station's engine filled in when it is known. Only the delivering
// goroutine calls it and learn, so engines needs no lock.
func (n *Notifier) usm(t target) *gosnmp.UsmSecurityParameters {
	sp := n.cfg.USM.Copy().(*gosnmp.UsmSecurityParameters)
	if e, ok := n.engines[t]; ok {
		sp.AuthoritativeEngineID, sp.AuthoritativeEngineBoots = e.id, e.boots
		sp.AuthoritativeEngineTime = e.time + uint32(time.Since(e.heard)/time.Second)
		sp.SecretKey, sp.PrivacyKey = e.secret, e.privK
	}
	return sp
}

// learn keeps the engine an acknowledged inform to t ended with, or forgets
// it when the attempt failed.
func (n *Notifier) learn(t target, g *gosnmp.GoSNMP, err error) {
	sp, ok := g.SecurityParameters.(*gosnmp.UsmSecurityParameters)
	if err != nil || !ok || sp.AuthoritativeEngineID == "" {
		delete(n.engines, t)
		return
	}
	n.engines[t] = engine{id: sp.AuthoritativeEngineID, boots: sp.AuthoritativeEngineBoots,
		time: sp.AuthoritativeEngineTime, heard: time.Now(), secret: sp.SecretKey, privK: sp.PrivacyKey}
}
