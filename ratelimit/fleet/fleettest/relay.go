package fleettest

import (
	"testing"

	"github.com/propertyd/propertyd/providers/kits/relaytest"
)

// Relay forwards TCP connections to the test Redis: Stop cuts them all,
// Start listens again on the same address.
type Relay = relaytest.Relay

// Relayed returns a Relay to the Redis server of u (listening) and u with
// its host replaced by the relay's address.
func Relayed(t testing.TB, u string) (string, *Relay) {
	t.Helper()
	return relaytest.RelayedURL(t, u, "6379")
}
