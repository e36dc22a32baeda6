package censusacs

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
)

// TestLongVariableListsAreSplit asks for more names than one request may
// carry: the fake refuses a get= over the limit with HTTP 400, as the
// upstream does, so only split requests succeed.
func TestLongVariableListsAreSplit(t *testing.T) {
	tr := providers.Tract{State: "53", County: "033", Tract: "005302"}
	for _, tc := range []struct {
		vars, calls int
	}{{0, 1}, {1, 1}, {MaxVariables - 1, 1}, {MaxVariables, 2}, {2*(MaxVariables-1) + 1, 3}} {
		t.Run(fmt.Sprint(tc.vars, " variables"), func(t *testing.T) {
			data := map[string]string{}
			var vars []string
			for i := range tc.vars {
				v := fmt.Sprintf("B25%03d_%03dE", i/10, i%10+1)
				vars = append(vars, v)
				data[v] = fmt.Sprint(1000 + i)
			}
			mt := httpmock.NewMockTransport()
			providertest.RegisterACS(mt, DefaultBaseURL, map[string]map[string]string{tr.GEOID(): data})
			c, err := New(providers.Settings{Client: &http.Client{Transport: mt}})
			if err != nil {
				t.Fatal(err)
			}
			row, _, err := c.fetch(context.Background(), tr, vars)
			if err != nil {
				t.Fatal(err)
			}
			for i, v := range vars {
				if n, err := row.Int(v); err != nil || n == nil || *n != int64(1000+i) {
					t.Errorf("%s = %v (%v), want %d", v, n, err, 1000+i)
				}
			}
			if n := providertest.ACSCalls(mt, DefaultBaseURL); n != tc.calls {
				t.Errorf("%d requests, want %d", n, tc.calls)
			}
		})
	}
}

func TestRedactKey(t *testing.T) {
	for in, want := range map[string]string{
		"https://x.test/data/2022/acs/acs5?get=NAME&key=abc123":       "https://x.test/data/2022/acs/acs5?get=NAME&key=REDACTED",
		"https://x.test/data/2022/acs/acs5?key=abc&for=tract:000100":  "https://x.test/data/2022/acs/acs5?key=REDACTED&for=tract:000100",
		"https://x.test/data/2022/acs/acs5?get=NAME&monkey=1":         "https://x.test/data/2022/acs/acs5?get=NAME&monkey=1",
		"https://x.test/data/2022/acs/acs5?get=NAME&for=tract:000100": "https://x.test/data/2022/acs/acs5?get=NAME&for=tract:000100",
	} {
		if got := redactKey(in); got != want {
			t.Errorf("redactKey(%q) = %q, want %q", in, got, want)
		}
	}
}
