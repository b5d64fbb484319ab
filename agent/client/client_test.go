package client

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestSayWhatToDo: a key the agent refuses and a silent agent are said in
// words that say what to do, not in the SNMP library's.
func TestSayWhatToDo(t *testing.T) {
	refused := fmt.Errorf("read the nodes of 192.0.2.1: %w", errors.New("incoming packet is not authentic, discarding"))
	if got := Say(refused); !strings.Contains(got, "keyring file") || strings.Contains(got, "discarding") {
		t.Errorf("a refused key: %q", got)
	}
	if got := Say(errors.New("request timeout (after 1 retries)")); !strings.Contains(got, "is the agent running") {
		t.Errorf("a timeout: %q", got)
	}
	if got := Say(errors.New("something else")); got != "something else" {
		t.Errorf("another error: %q", got)
	}
}
