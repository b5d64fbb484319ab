package probe

import (
	"context"
	"errors"
	"fmt"
	"net/netip"
	"time"

	probing "github.com/prometheus-community/pro-bing"
	"golang.org/x/net/icmp"
)

// ErrICMPUnavailable is wrapped by CheckICMP and CheckUnprivilegedICMP when
// the socket cannot be opened; the message says how to fix it.
var ErrICMPUnavailable = errors.New("probe: cannot open an ICMP socket")

// Pinger sends ICMP echo requests; step 2 of a probe uses it.
type Pinger interface {
	// Ping returns the round-trip time of the first echo reply from addr, or an error.
	Ping(ctx context.Context, addr netip.Addr) (time.Duration, error)
}

// ICMPPinger pings with pro-bing, one socket per call.
type ICMPPinger struct {
	// Privileged uses a raw ICMP socket (root or CAP_NET_RAW); false uses an
	// unprivileged ICMP datagram socket (net.ipv4.ping_group_range).
	Privileged bool
	// Count is how many echo requests are sent, spread over Timeout.
	Count int
	// Timeout bounds the whole ping.
	Timeout time.Duration
	// Source is the address echo requests leave from; zero lets the kernel pick.
	Source netip.Addr
}

// Ping sends up to Count echo requests and stops at the first reply.
func (ip *ICMPPinger) Ping(ctx context.Context, addr netip.Addr) (time.Duration, error) {
	if ip.Timeout <= 0 {
		return 0, fmt.Errorf("%w: ICMPPinger.Timeout %s: want > 0", ErrConfig, ip.Timeout)
	}
	if check(Target{Addr: addr}) != nil {
		return 0, fmt.Errorf("ping %q: %w", addr, ErrBadTarget)
	}
	pg := probing.New(addr.Unmap().String())
	pg.SetPrivileged(ip.Privileged)
	if addr.Unmap().Is4() {
		pg.SetNetwork("ip4")
	} else {
		pg.SetNetwork("ip6") // ICMPv6 echo
	}
	pg.SetLogger(probing.NoopLogger{})
	if sameFamily(ip.Source, addr) {
		pg.Source = ip.Source.Unmap().String()
	}
	pg.Count = max(ip.Count, 1)
	pg.Timeout = ip.Timeout
	pg.Interval = ip.Timeout / time.Duration(pg.Count)
	pg.RecordRtts, pg.RecordTTLs = false, false
	pg.OnRecv = func(*probing.Packet) { pg.Stop() }
	if err := pg.RunWithContext(ctx); err != nil {
		return 0, fmt.Errorf("ping %s: %w", addr, err)
	}
	st := pg.Statistics()
	if st.PacketsRecv == 0 {
		return 0, fmt.Errorf("ping %s: %w after %d request(s) in %s", addr, ErrNoEchoReply, st.PacketsSent, ip.Timeout)
	}
	return st.MinRtt, nil
}

// CheckICMP opens and closes a raw ICMP socket, as privileged pings need;
// its error tells the operator how to grant the right.
func CheckICMP() error {
	c, err := icmp.ListenPacket("ip4:icmp", "0.0.0.0")
	if err != nil {
		return fmt.Errorf("%w: raw socket: %w; %s", ErrICMPUnavailable, err, rawHint())
	}
	return c.Close()
}

// CheckUnprivilegedICMP opens and closes an ICMP datagram socket, as
// unprivileged pings need; its error says what the system needs for it.
func CheckUnprivilegedICMP() error {
	c, err := icmp.ListenPacket("udp4", "0.0.0.0")
	if err != nil {
		return fmt.Errorf("%w: ICMP datagram socket: %w; %s", ErrICMPUnavailable, err, datagramHint())
	}
	return c.Close()
}
