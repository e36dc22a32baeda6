package gateway

import "testing"

// negotiate follows RFC 9110 section 12.5.3: listed codings by q-value,
// "*" for those not listed, q=0 as a refusal, identity acceptable unless
// refused, and brotli before gzip before identity when q-values tie.
func TestNegotiateHonoursQValues(t *testing.T) {
	for _, c := range []struct {
		ae   string
		want coding
	}{
		{"", identity},
		{"gzip", codingGzip},
		{"x-gzip", codingGzip},
		{"GZIP", codingGzip},
		{"br", codingBrotli},
		{"gzip, deflate, br, zstd", codingBrotli},
		{"gzip, br, zstd", codingBrotli},
		{"deflate, zstd", identity},
		{"br;q=0.5, gzip", codingGzip},
		{"br;q=1.0, gzip;q=0.999", codingBrotli},
		{"gzip;q=0", identity},
		{"gzip;q=0, br", codingBrotli},
		{"br;q=0, gzip;q=0", identity},
		{"identity;q=0, gzip;q=0", identity}, // nothing acceptable: sent as it is, no 406
		{"identity;q=0, gzip", codingGzip},
		{"identity, gzip", codingGzip},
		{"identity;q=1, gzip;q=0.5", identity},
		{"gzip;q=0.5", codingGzip}, // identity unlisted ranks below every coding
		{"*", codingBrotli},
		{"*;q=0", identity},
		{"*;q=0, gzip", codingGzip},
		{"*, br;q=0", codingGzip},
		{"*;q=0.2, gzip;q=0.1", codingBrotli},
		{"identity", identity},
		{"gzip;q=2", identity},    // not a q-value: the element is ignored
		{"gzip;q=0.5x", identity}, // nor this
		{"gzip;q=0.1234", identity},
		{" gzip ; q=0.8 ; foo=bar ", codingGzip},
		{"gzip;Q=0", identity},
		{",,gzip,", codingGzip},
	} {
		if got := negotiate([]byte(c.ae)); got != c.want {
			t.Errorf("Accept-Encoding %q: %q, want %q", c.ae, codingNames[got], codingNames[c.want])
		}
	}
}
