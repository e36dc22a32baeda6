package gateway

import (
	"testing"

	"github.com/propertyd/propertyd/providers"
)

// A kind is a Failure (refunded, see limit) exactly when the status table
// answers it with a 5xx: a new kind added to one but not the other would
// charge keys for our outages, or refund answers.
func TestFailureKindsAreTheFiveHundreds(t *testing.T) {
	for kind, status := range statusOf {
		if kind == providers.KindCanceled {
			continue // 499: the client went away; nothing is sent
		}
		if kind == providers.KindVersion {
			continue // 505: the client's HTTP version, refused before a key is charged
		}
		if got, want := kind.Failure(), status >= 500; got != want {
			t.Errorf("kind %d answers %d but Failure() = %v", kind, status, got)
		}
	}
}
