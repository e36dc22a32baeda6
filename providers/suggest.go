package providers

import "strings"

// Closest returns the name of known that name is most likely a misspelling
// of, for a "did you mean" in an error about a configuration key: the
// nearest by edit distance (insertions, deletions, substitutions and swaps
// of neighbours, ignoring case), when it is within a third of the name's
// length (at least one edit). ok is false when no name is that close:
// suggesting a far-fetched one would only mislead. It is safe for
// concurrent use.
func Closest(name string, known []string) (closest string, ok bool) {
	best := -1
	for _, k := range known {
		d := editDistance(strings.ToLower(name), strings.ToLower(k))
		if d <= max(1, len([]rune(k))/3) && (best < 0 || d < best) {
			closest, best = k, d
		}
	}
	return closest, best >= 0
}

// DidYouMean is Closest as the end of an error message: `; did you mean
// "listen"?`, or "" when no known name is close.
func DidYouMean(name string, known []string) string {
	if c, ok := Closest(name, known); ok {
		return `; did you mean "` + c + `"?`
	}
	return ""
}

// editDistance is the optimal string alignment distance between a and b:
// the fewest insertions, deletions, substitutions and swaps of adjacent
// letters that turn one into the other ("burts" is one swap from "burst").
func editDistance(a, b string) int {
	s, t := []rune(a), []rune(b)
	// d[i][j] is the distance between s[:i] and t[:j].
	d := make([][]int, len(s)+1)
	for i := range d {
		d[i] = make([]int, len(t)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(s); i++ {
		for j := 1; j <= len(t); j++ {
			cost := 1
			if s[i-1] == t[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && s[i-1] == t[j-2] && s[i-2] == t[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(s)][len(t)]
}
