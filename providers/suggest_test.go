package providers_test

import (
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func TestClosestSuggestsOnlyNearNames(t *testing.T) {
	known := []string{"listen", "debug_listen", "database", "batch_concurrency", "burst", "rate", "url", "max_mb", "module"}
	for _, tc := range []struct{ name, want string }{
		{"lisen", "listen"},                       // a letter left out
		{"batch_concurency", "batch_concurrency"}, // another
		{"burts", "burst"},                        // two letters swapped
		{"Listen", "listen"},                      // case
		{"uri", "url"},                            // short names: one edit
		{"databse", "database"},                   // ...
		{"max_mbb", "max_mb"},                     // one too many
		{"modules", "module"},                     // plural
		{"port", ""},                              // nothing close
		{"redis", ""},                             // ...
		{"debug", ""},                             // a part is no misspelling
		{"bursts_per_second_max", ""},             // far longer
	} {
		got, ok := providers.Closest(tc.name, known)
		if got != tc.want || ok != (tc.want != "") {
			t.Errorf("Closest(%q) = %q, %v; want %q", tc.name, got, ok, tc.want)
		}
	}
	if got := providers.DidYouMean("lisen", known); got != `; did you mean "listen"?` {
		t.Errorf("DidYouMean = %q", got)
	}
	if got := providers.DidYouMean("port", known); got != "" {
		t.Errorf("DidYouMean of a far name = %q, want nothing", got)
	}
}
