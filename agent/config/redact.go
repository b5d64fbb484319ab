package config

import "slices"

// redacted replaces a secret in Redacted's copy.
const redacted = "(secret)"

// Redacted returns a copy of c with communities and pass phrases replaced, fit for logs.
func (c Config) Redacted() Config {
	hide := func(s *string) {
		if *s != "" {
			*s = redacted
		}
	}
	hide(&c.SNMP.Communities.Read)
	hide(&c.SNMP.Communities.Write)
	hide(&c.Traps.Community)
	hide(&c.Traps.V3.AuthPassphrase)
	hide(&c.Traps.V3.PrivPassphrase)
	c.SNMP.Users = slices.Clone(c.SNMP.Users)
	for i := range c.SNMP.Users {
		hide(&c.SNMP.Users[i].AuthPassphrase)
		hide(&c.SNMP.Users[i].PrivPassphrase)
	}
	c.Nodes = slices.Clone(c.Nodes)
	for i := range c.Nodes {
		hide(&c.Nodes[i].Community)
	}
	return c
}
