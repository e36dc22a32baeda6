package upstream

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// LooseNumber reads a JSON value that should be a number but, depending on
// the upstream's mood, comes as a number, a numeric string (with any of the
// characters in strip removed, e.g. "$," for "$1,250.0"), an empty string or
// null. set is false for null and for an empty string.
func LooseNumber(b []byte, strip string) (f float64, set bool, err error) {
	b = bytes.TrimSpace(b)
	if bytes.Equal(b, []byte("null")) {
		return 0, false, nil
	}
	s := string(b)
	if len(b) > 0 && b[0] == '"' {
		if err := json.Unmarshal(b, &s); err != nil {
			return 0, false, err
		}
		for _, r := range strip {
			s = strings.ReplaceAll(s, string(r), "")
		}
		if s = strings.TrimSpace(s); s == "" {
			return 0, false, nil
		}
	}
	f, err = strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false, errors.New("not a number")
	}
	return f, true, nil
}
