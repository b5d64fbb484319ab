package config

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
