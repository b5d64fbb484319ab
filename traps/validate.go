package traps

import (
	"fmt"
	"net/netip"
)

// Validate checks every field and names the first one that is wrong.
func (c Config) Validate() error {
	switch {
	case c.Kind < TrapV1 || c.Kind > InformV3:
		return fmt.Errorf("%w: Kind %d is not one of trap-v1, trap-v2c, inform-v2c, inform-v3", ErrInvalidConfig, int(c.Kind))
	case c.Stations == nil:
		return fmt.Errorf("%w: Stations must be set", ErrInvalidConfig)
	case c.QueueSize < 1:
		return fmt.Errorf("%w: QueueSize must be at least 1, got %d", ErrInvalidConfig, c.QueueSize)
	case c.Timeout <= 0:
		return fmt.Errorf("%w: Timeout must be positive, got %v", ErrInvalidConfig, c.Timeout)
	case c.MaxTimeout < c.Timeout:
		return fmt.Errorf("%w: MaxTimeout %v is below Timeout %v", ErrInvalidConfig, c.MaxTimeout, c.Timeout)
	case c.MaxAttempts < 0:
		return fmt.Errorf("%w: MaxAttempts must not be negative, got %d", ErrInvalidConfig, c.MaxAttempts)
	case c.Recheck < 0:
		return fmt.Errorf("%w: Recheck must not be negative, got %v", ErrInvalidConfig, c.Recheck)
	case c.DrainTimeout < 0:
		return fmt.Errorf("%w: DrainTimeout must not be negative, got %v", ErrInvalidConfig, c.DrainTimeout)
	}
	if c.Kind == InformV3 {
		if c.USM == nil || c.USM.UserName == "" {
			return fmt.Errorf("%w: USM.UserName must be set for inform-v3", ErrInvalidConfig)
		}
		return nil
	}
	if c.Community == "" {
		return fmt.Errorf("%w: Community must be set for %s", ErrInvalidConfig, c.Kind)
	}
	if c.Kind == TrapV1 {
		if a, err := netip.ParseAddr(c.AgentAddress); err != nil || !a.Is4() {
			return fmt.Errorf("%w: AgentAddress %q is not an IPv4 address", ErrInvalidConfig, c.AgentAddress)
		}
	}
	return nil
}
