package snmp

import (
	"errors"
	"strings"
	"testing"
)

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name, want string
		edit       func(*Config)
	}{
		{"boots zero", "EngineBoots", func(c *Config) { c.EngineBoots = 0 }},
		{"engine id short", "EngineID", func(c *Config) { c.EngineID = []byte{1, 2} }},
		{"message size small", "MaxMessageSize", func(c *Config) { c.MaxMessageSize = 100 }},
		{"message size big", "MaxMessageSize", func(c *Config) { c.MaxMessageSize = 70000 }},
		{"no workers", "Workers", func(c *Config) { c.Workers = 0 }},
		{"empty community", "Communities[0]", func(c *Config) { c.Communities = []Community{{}} }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := Default()
			c.edit(&cfg)
			err := cfg.Validate()
			if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Validate() = %v, want ErrConfig naming %q", err, c.want)
			}
			if _, err := NewResponder(cfg); !errors.Is(err, ErrConfig) {
				t.Errorf("NewResponder accepted the config: %v", err)
			}
		})
	}
	def := Default()
	if err := def.Validate(); err != nil {
		t.Errorf("Default() is invalid: %v", err)
	}
}

func TestRandomEngineIDWhenNoneIsGiven(t *testing.T) {
	r, err := NewResponder(Default())
	if err != nil {
		t.Fatal(err)
	}
	id := r.EngineID()
	if len(id) != 13 || id[0] != 0x80 || id[3] != 200 {
		t.Errorf("engine ID %x, want 13 octets under enterprise 200", id)
	}
}
