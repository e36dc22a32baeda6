package gateway

import (
	"fmt"
	"log/slog"
	"math"
	"strconv"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func TestAppendDecimalWritesWhatStrconvWrites(t *testing.T) {
	for _, n := range []int64{0, 1, 9, 10, 99, 100, 200, 999, 1000, 1001, 65535, 1e9, -1, -999, -1000, math.MaxInt64, math.MinInt64} {
		if got, want := string(appendDecimal([]byte("x"), n)), "x"+strconv.FormatInt(n, 10); got != want {
			t.Errorf("appendDecimal(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestPutHexWritesWhatFmtWrites(t *testing.T) {
	for _, v := range []uint64{0, 1, 0xab, 0x0123456789abcdef, math.MaxUint64, math.MaxUint32} {
		var b [16]byte
		putHex(b[:], v)
		if got, want := string(b[:]), fmt.Sprintf("%016x", v); got != want {
			t.Errorf("putHex(%#x) = %q, want %q", v, got, want)
		}
		putHex(b[:8], v)
		if got, want := string(b[:8]), fmt.Sprintf("%08x", v&math.MaxUint32); got != want {
			t.Errorf("putHex(%#x) into 8 = %q, want %q", v, got, want)
		}
	}
}

// The access line quotes the level, the route and the cache tier without
// escaping them (appendQuoted): each such name must hold nothing JSON
// escapes, which this checks for every one there is.
func TestAccessLineNamesNeedNoEscaping(t *testing.T) {
	names := []string{"", "unmatched", routeProperty}
	for _, l := range []slog.Level{slog.LevelDebug, slog.LevelInfo, slog.LevelWarn, slog.LevelError} {
		names = append(names, l.String())
	}
	names = append(names, providers.Tiers...)
	g := New(Config{})
	for _, r := range g.App().GetRoutes() {
		names = append(names, r.Path)
	}
	if len(names) < 20 {
		t.Fatalf("only %d names: the app's routes were not listed", len(names))
	}
	for _, s := range names {
		if got, want := string(appendQuoted(nil, s)), string(appendJSONString(nil, s)); got != want {
			t.Errorf("%q quotes as %s, but escapes as %s", s, got, want)
		}
	}
}
