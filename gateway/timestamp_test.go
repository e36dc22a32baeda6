package gateway

import (
	"testing"
	"time"
)

// The request log's time is what slog would write: RFC 3339 with the
// fraction's trailing zeros trimmed, in the time's own zone, across second
// boundaries and zone changes.
func TestStampsWriteWhatRFC3339NanoWrites(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		ny = time.FixedZone("EST", -5*3600)
	}
	zones := []*time.Location{time.UTC, time.FixedZone("IST", 5*3600+1800), ny, time.Local}
	base := time.Date(2026, 3, 8, 6, 59, 59, 0, time.UTC) // New York's clocks go forward a second later
	var s stamps
	for _, loc := range zones {
		for _, step := range []time.Duration{0, 1, 10, 100 * time.Millisecond, 999999999, time.Second, 1500 * time.Millisecond, time.Hour} {
			at := base.Add(step).In(loc)
			for _, ns := range []int{0, 1, 10, 120000000, 123456789, 999999999} {
				tm := time.Date(at.Year(), at.Month(), at.Day(), at.Hour(), at.Minute(), at.Second(), ns, loc)
				want := tm.AppendFormat(nil, time.RFC3339Nano)
				if got := s.append([]byte("x"), tm); string(got) != "x"+string(want) {
					t.Fatalf("%v: got %s, want %s", tm, got[1:], want)
				}
			}
		}
	}
	// The clock's monotonic reading changes nothing.
	now := time.Now()
	if got, want := s.append(nil, now), now.AppendFormat(nil, time.RFC3339Nano); string(got) != string(want) {
		t.Fatalf("time.Now(): got %s, want %s", got, want)
	}
}

func BenchmarkStamps(b *testing.B) {
	var s stamps
	buf := make([]byte, 0, 64)
	t0 := time.Now()
	b.Run("stamps", func(b *testing.B) {
		for i := range b.N {
			buf = s.append(buf[:0], t0.Add(time.Duration(i)*time.Microsecond))
		}
	})
	b.Run("AppendFormat", func(b *testing.B) {
		for i := range b.N {
			buf = t0.Add(time.Duration(i)*time.Microsecond).AppendFormat(buf[:0], time.RFC3339Nano)
		}
	})
}
