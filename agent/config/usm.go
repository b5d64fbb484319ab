package config

import (
	"strings"

	"github.com/gosnmp/gosnmp"
)

// privProtocol is one privacy protocol name's meaning.
type privProtocol struct {
	proto gosnmp.SnmpV3PrivProtocol
	none  bool
}

// authProtocols maps the auth_protocol names to gosnmp's protocols (sha is SHA-1).
func authProtocols() map[string]gosnmp.SnmpV3AuthProtocol {
	return map[string]gosnmp.SnmpV3AuthProtocol{
		"sha": gosnmp.SHA, "sha224": gosnmp.SHA224, "sha256": gosnmp.SHA256,
		"sha384": gosnmp.SHA384, "sha512": gosnmp.SHA512,
	}
}

// privProtocols maps the priv_protocol names to gosnmp's protocols; aes192 and aes256
// are the Blumenthal key extension net-snmp's -x AES192/AES256 speak, aes192c and
// aes256c the Reeder one (-x AES192C/AES256C, Cisco's).
func privProtocols() map[string]privProtocol {
	return map[string]privProtocol{
		"": {gosnmp.NoPriv, true}, "none": {gosnmp.NoPriv, true},
		"aes": {proto: gosnmp.AES}, "aes192": {proto: gosnmp.AES192}, "aes256": {proto: gosnmp.AES256},
		"aes192c": {proto: gosnmp.AES192C}, "aes256c": {proto: gosnmp.AES256C},
	}
}

// AuthProto returns the gosnmp authentication protocol of a validated user
// (gosnmp.NoAuth when auth_protocol is empty).
func (c Credentials) AuthProto() gosnmp.SnmpV3AuthProtocol {
	if p, ok := authProtocols()[strings.ToLower(c.AuthProtocol)]; ok {
		return p
	}
	return gosnmp.NoAuth
}

// PrivProto returns the gosnmp privacy protocol of a validated user (gosnmp.NoPriv for none).
func (c Credentials) PrivProto() gosnmp.SnmpV3PrivProtocol {
	return privProtocols()[strings.ToLower(c.PrivProtocol)].proto
}

// MsgFlags returns the security level the user's protocols give: authPriv or authNoPriv.
func (c Credentials) MsgFlags() gosnmp.SnmpV3MsgFlags {
	if c.PrivProto() == gosnmp.NoPriv {
		return gosnmp.AuthNoPriv
	}
	return gosnmp.AuthPriv
}

// USM returns gosnmp security parameters for a manager (tests, informs) using these credentials.
func (c Credentials) USM() *gosnmp.UsmSecurityParameters {
	return &gosnmp.UsmSecurityParameters{
		UserName:                 c.Name,
		AuthenticationProtocol:   c.AuthProto(),
		AuthenticationPassphrase: c.AuthPassphrase,
		PrivacyProtocol:          c.PrivProto(),
		PrivacyPassphrase:        c.PrivPassphrase,
	}
}

// User returns the snmp.users entry called name.
func (s SNMP) User(name string) (User, bool) {
	for _, u := range s.Users {
		if u.Name == name {
			return u, true
		}
	}
	return User{}, false
}

// EngineIDBytes returns the validated snmp.engine_id as octets, nil when it is empty.
func (s SNMP) EngineIDBytes() []byte {
	b, _ := decodeEngineID(s.EngineID)
	return b
}
