package walkscore

import (
	"fmt"
	"math"

	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// scoreDoc is the JSON body of GET score. Only the fields propertyd uses are
// decoded; the branding links, updated and snapped_lat/lon are ignored.
type scoreDoc struct {
	Status      number    `json:"status"`
	WalkScore   number    `json:"walkscore"`
	Description *string   `json:"description"`
	Transit     *subScore `json:"transit"`
	Bike        *subScore `json:"bike"`
}

// subScore is the transit or bike object; every field may be null.
type subScore struct {
	Score       number  `json:"score"`
	Description *string `json:"description"`
}

// number is a JSON value that should be an integer but may come as null, a
// float or a numeric string. Set is false for null or an absent field.
type number struct {
	Set   bool
	Value int
}

// UnmarshalJSON accepts null, a number or a string holding a number; floats
// are rounded to the nearest integer.
func (n *number) UnmarshalJSON(b []byte) error {
	f, set, err := upstream.LooseNumber(b, "")
	if !set && err == nil {
		*n = number{}
		return nil
	}
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) || math.Abs(f) > 1e9 {
		return fmt.Errorf("walkscore: %s is not a number", b)
	}
	*n = number{Set: true, Value: int(math.Round(f))}
	return nil
}

// ptr returns the value as *int when it is set and a valid 0-100 score,
// else nil: an out-of-range optional score is treated as absent.
func (n number) ptr() *int {
	if !n.Set || n.Value < 0 || n.Value > 100 {
		return nil
	}
	v := n.Value
	return &v
}

// Band returns Walk Score's description of a walk score: "Walker's Paradise"
// from 90, "Very Walkable" from 70, "Somewhat Walkable" from 50, else
// "Car-Dependent". It fills in a description the upstream left out.
func Band(score int) string {
	switch {
	case score >= 90:
		return "Walker's Paradise"
	case score >= 70:
		return "Very Walkable"
	case score >= 50:
		return "Somewhat Walkable"
	default:
		return "Car-Dependent"
	}
}
