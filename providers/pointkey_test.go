package providers_test

import (
	"fmt"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

// The point key is the cache key of stored sections: it must stay the text
// it was written as (fmt's %.5f), or every stored value would be missed.
func TestPointKeyIsFiveDecimals(t *testing.T) {
	for _, p := range []providers.Point{{Lat: 38.8977, Lng: -77.0365}, {Lat: 0, Lng: 0}, {Lat: -90, Lng: 180},
		{Lat: 37.123456789, Lng: -122.000005}, {Lat: 1e-9, Lng: -1e-9}, {Lat: 45.999995, Lng: -0.000004}} {
		if got, want := p.Key(), fmt.Sprintf("%.5f,%.5f", p.Lat, p.Lng); got != want {
			t.Errorf("Key(%v) = %q, want %q", p, got, want)
		}
	}
}
