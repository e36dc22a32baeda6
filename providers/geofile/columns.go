package geofile

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Columns reads a feature's attributes by column name, as every layer's
// definition needs them (providers/tiger, providers/floodmap): a name
// matches exactly first, then without regard to case (one publisher's
// download writes capitals, another export lower case), then, for each of
// Suffixes in order, the name with the suffix (TIGER/Line's decennial
// editions write TRACTCE20). A column the file lacks reads as null. The
// zero value reads nothing; it is safe for concurrent use.
type Columns struct {
	Props    map[string]any
	Suffixes []string
}

// Value returns the column's value as Next gives it (string, int64,
// float64, bool, time.Time) or nil.
func (c Columns) Value(name string) any {
	if v, ok := c.find(name); ok {
		return v
	}
	for _, s := range c.Suffixes {
		if v, ok := c.find(name + s); ok {
			return v
		}
	}
	return nil
}

func (c Columns) find(name string) (any, bool) {
	if v, ok := c.Props[name]; ok {
		return v, true
	}
	for k, v := range c.Props {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return nil, false
}

// Text reads a text column: nil for null, else the string as written. Any
// other value is an error naming the column.
func (c Columns) Text(name string) (*string, error) {
	switch v := c.Value(name).(type) {
	case nil:
		return nil, nil
	case string:
		return &v, nil
	default:
		return nil, fmt.Errorf("column %s: %v (%T) is not text", name, v, v)
	}
}

// Number reads a number column: nil for null, an int64 or a float64, or
// text holding a finite number ("+38.9001239"; blank is null). Anything
// else is an error naming the column.
func (c Columns) Number(name string) (*float64, error) {
	var f float64
	switch v := c.Value(name).(type) {
	case nil:
		return nil, nil
	case float64:
		f = v
	case int64:
		f = float64(v)
	case int:
		f = float64(v)
	case string:
		s := strings.TrimSpace(v)
		if s == "" {
			return nil, nil
		}
		var err error
		if f, err = strconv.ParseFloat(s, 64); err != nil {
			return nil, fmt.Errorf("column %s: %q is not a number", name, v)
		}
	default:
		return nil, fmt.Errorf("column %s: %v (%T) is not a number", name, v, v)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, fmt.Errorf("column %s: %v is not a number", name, f)
	}
	return &f, nil
}
