package tiger_test

import (
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers/tiger"
)

func TestSameTractsSaysWhichTIGERLineVintageServesAnACSRelease(t *testing.T) {
	tests := []struct {
		name       string
		tiger, acs int
		state      string
		same       bool
		reasonHas  string
	}{
		{"2024 tracts, 2020-2024 ACS", 2024, 2024, "11", true, ""},
		{"2020 tracts serve 2016-2020, the first release on them", 2020, 2020, "11", true, ""},
		{"2023 tracts serve 2016-2020 too", 2023, 2020, "48", true, ""},
		{"2020 tracts do not serve 2015-2019", 2020, 2019, "11", false, "the 2010 tracts"},
		{"2019 tracts do not serve 2016-2020", 2019, 2020, "11", false, "TIGER/Line 2019 has the 2010 census tracts"},
		{"2010 tracts serve 2006-2010, the first release on them", 2010, 2010, "36", true, ""},
		{"2015 tracts serve 2015-2019", 2015, 2019, "36", true, ""},
		{"2010 tracts do not serve 2005-2009", 2010, 2009, "36", false, "the 2000 tracts"},
		{"no release ended 2008", 2008, 2008, "36", false, "no ACS 5-year release ending 2008"},
		{"Connecticut: 2022 tracts serve 2018-2022", 2022, 2022, "09", true, ""},
		{"Connecticut: 2021 tracts do not serve 2018-2022", 2021, 2022, "09", false, "planning regions"},
		{"Connecticut: 2023 tracts do not serve 2017-2021", 2023, 2021, "09", false, "planning regions"},
		{"Connecticut: 2020 tracts serve 2017-2021", 2020, 2021, "09", true, ""},
		{"elsewhere 2021 tracts serve 2018-2022", 2021, 2022, "11", true, ""},
		{"a file of several states is checked for Connecticut", 2021, 2022, "", false, "Connecticut"},
		{"a file of several states, both after 2022", 2024, 2023, "", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			same, reason := tiger.SameTracts(tt.tiger, tt.acs, tt.state)
			if same != tt.same || (same && reason != "") || !strings.Contains(reason, tt.reasonHas) {
				t.Errorf("SameTracts(%d, %d, %q) = %v, %q; want %v with a reason containing %q",
					tt.tiger, tt.acs, tt.state, same, reason, tt.same, tt.reasonHas)
			}
		})
	}
}
