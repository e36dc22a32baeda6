package gateway

import "strconv"

// smallDecimals is the decimal text of 0 to 999: the numbers a request
// line and the rate-limit headers write most (a status, a duration in
// microseconds, a cost, a reset in seconds, the limits of ordinary keys).
// strconv.AppendInt costs about a hundred instructions a call under
// callgrind; a table entry costs a copy.
var smallDecimals = func() (t [1000]string) {
	for i := range t {
		t[i] = strconv.Itoa(i)
	}
	return t
}()

// appendDecimal appends n in decimal, as strconv.AppendInt(b, n, 10).
func appendDecimal(b []byte, n int64) []byte {
	if uint64(n) < uint64(len(smallDecimals)) {
		return append(b, smallDecimals[n]...)
	}
	return strconv.AppendInt(b, n, 10)
}
