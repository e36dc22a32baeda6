//go:build !race

package gateway_test

// raceEnabled is true in a build with the race detector, whose
// instrumentation allocates where the code does not.
const raceEnabled = false
