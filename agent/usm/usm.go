// Package usm is the SNMPv3 user of the User-based Security Model (RFC
// 3414): a usmUserTable row with the pass phrases its keys are made from,
// and the protocols its names stand for. It is the one type of a user: the
// responder serves users, the prober tests peers as one, the notifier sends
// informs as one; the configuration file's keys translate into it.
package usm

import (
	"fmt"
	"strings"

	"github.com/gosnmp/gosnmp"
)

// User is one SNMPv3 user: a row of RFC 3414's usmUserTable with the pass
// phrases its keys are made from. The configuration validates it once when
// it is loaded.
type User struct {
	// Name is the USM user name.
	Name string
	// AuthProtocol is sha, sha224, sha256, sha384 or sha512.
	AuthProtocol string
	// AuthPassphrase is the authentication pass phrase (8 characters at least).
	AuthPassphrase string
	// PrivProtocol is none, aes, aes192, aes256, aes192c or aes256c.
	PrivProtocol string
	// PrivPassphrase is the privacy pass phrase (8 characters at least unless PrivProtocol is none).
	PrivPassphrase string
}

// PrivProtocol is one privacy protocol name's meaning.
type PrivProtocol struct {
	Proto gosnmp.SnmpV3PrivProtocol // gosnmp's protocol
	None  bool                      // no privacy
}

// AuthProtocols maps the auth_protocol names to gosnmp's protocols (sha is SHA-1).
func AuthProtocols() map[string]gosnmp.SnmpV3AuthProtocol {
	return map[string]gosnmp.SnmpV3AuthProtocol{
		"sha": gosnmp.SHA, "sha224": gosnmp.SHA224, "sha256": gosnmp.SHA256,
		"sha384": gosnmp.SHA384, "sha512": gosnmp.SHA512,
	}
}

// PrivProtocols maps the priv_protocol names to gosnmp's protocols; aes192 and aes256
// are the Blumenthal key extension net-snmp's -x AES192/AES256 speak, aes192c and
// aes256c the Reeder one (-x AES192C/AES256C, Cisco's).
func PrivProtocols() map[string]PrivProtocol {
	return map[string]PrivProtocol{
		"": {gosnmp.NoPriv, true}, "none": {gosnmp.NoPriv, true},
		"aes": {Proto: gosnmp.AES}, "aes192": {Proto: gosnmp.AES192}, "aes256": {Proto: gosnmp.AES256},
		"aes192c": {Proto: gosnmp.AES192C}, "aes256c": {Proto: gosnmp.AES256C},
	}
}

// AuthProto returns the gosnmp authentication protocol of a validated user
// (gosnmp.NoAuth when auth_protocol is empty).
func (c User) AuthProto() gosnmp.SnmpV3AuthProtocol {
	if p, ok := AuthProtocols()[strings.ToLower(c.AuthProtocol)]; ok {
		return p
	}
	return gosnmp.NoAuth
}

// PrivProto returns the gosnmp privacy protocol of a validated user (gosnmp.NoPriv for none).
func (c User) PrivProto() gosnmp.SnmpV3PrivProtocol {
	return PrivProtocols()[strings.ToLower(c.PrivProtocol)].Proto
}

// MsgFlags returns the security level the user's protocols give: authPriv or authNoPriv.
func (c User) MsgFlags() gosnmp.SnmpV3MsgFlags {
	if c.PrivProto() == gosnmp.NoPriv {
		return gosnmp.AuthNoPriv
	}
	return gosnmp.AuthPriv
}

// USM returns gosnmp security parameters for a manager (tests, informs) using these credentials.
func (c User) USM() *gosnmp.UsmSecurityParameters {
	return &gosnmp.UsmSecurityParameters{
		UserName:                 c.Name,
		AuthenticationProtocol:   c.AuthProto(),
		AuthenticationPassphrase: c.AuthPassphrase,
		PrivacyProtocol:          c.PrivProto(),
		PrivacyPassphrase:        c.PrivPassphrase,
	}
}

// Localized returns the user's keys localized to engineID (RFC 3414 A.2):
// the authentication key, and the privacy key (nil without privacy), as
// gosnmp speaks with them. For AES-128 the privacy key is the first 16
// octets of the pass phrase's localized key (RFC 3826 section 1.2.3): gosnmp
// extends that key first (Reeder's extension, which a 128-bit key never
// needs), hashing a megabyte again for each new engine, 4 ms of CPU with
// SHA-256; here the pass phrase's own hash is computed once (gosnmp keeps
// it) and each engine then costs a few microseconds. The other protocols
// are localized by gosnmp itself.
func (c User) Localized(engineID string) (auth, priv []byte, err error) {
	sp := c.USM()
	sp.AuthoritativeEngineID = engineID
	aes128 := sp.PrivacyProtocol == gosnmp.AES
	if aes128 {
		sp.PrivacyProtocol = gosnmp.DES // localized as the pass phrase's key itself, unextended
	}
	if err := sp.InitSecurityKeys(); err != nil {
		return nil, nil, err
	}
	auth, priv = sp.SecretKey, sp.PrivacyKey
	if aes128 {
		if len(priv) < 16 {
			return nil, nil, fmt.Errorf("usm: %d-octet privacy key for AES-128", len(priv))
		}
		priv = priv[:16]
	}
	return auth, priv, nil
}
