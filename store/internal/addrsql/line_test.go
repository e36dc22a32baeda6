package addrsql

import (
	"reflect"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func TestLinesRoundTripAndRefuseOtherBytes(t *testing.T) {
	line := []providers.Point{{Lat: 38.8977, Lng: -77.0366}, {Lat: -90, Lng: 180}, {Lat: 0.1, Lng: -0.2}}
	b := lineWKB(line)
	if len(b) != 9+16*3 {
		t.Fatalf("a line of 3 points is %d bytes, want %d", len(b), 9+16*3)
	}
	got, err := readLine(b)
	if err != nil || !reflect.DeepEqual(got, line) {
		t.Fatalf("readLine = %v, %v; want %v", got, err, line)
	}
	for name, bad := range map[string][]byte{
		"cut short":  b[:len(b)-1],
		"longer":     append(append([]byte{}, b...), 0),
		"big-endian": append([]byte{0}, b[1:]...),
		"a point":    {1, 1, 0, 0, 0},
		"nothing":    nil,
	} {
		if _, err := readLine(bad); err == nil {
			t.Errorf("%s: read as a line", name)
		}
	}
}

// Each span's width bounds hi - lo below it (migration 0024).
func TestSpans(t *testing.T) {
	for _, c := range []struct{ lo, hi, want int64 }{
		{100, 100, 0}, {100, 198, 0}, {100, 199, 0}, {100, 200, 1}, {0, 999, 1}, {0, 1000, 2},
		{0, 99_999, 3}, {0, 100_000, 4}, {0, 1 << 62, 4},
	} {
		if got := spanOf(c.lo, c.hi); got != c.want {
			t.Errorf("spanOf(%d, %d) = %d, want %d", c.lo, c.hi, got, c.want)
		}
	}
}
