package censusacs_test

import (
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/internal/recordings"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
)

// statusInName finds the HTTP status a recording was answered with, as its
// file name says: error_400_..., no_data_204_..., invalid_key_http200_...
var statusInName = regexp.MustCompile(`(?:^|_)(?:http)?([1-5][0-9]{2})(?:_|\.)`)

// TestRecordingsConformance runs every recording of the real upstream
// through the client's decoding path (ParseResponse, then Select and the
// section builders) and checks the outcome a user would see.
func TestRecordingsConformance(t *testing.T) {
	dir := recordings.Dir(t, "census-acs")
	files := recordings.Files(t, dir, ".json", ".txt", ".html")
	if len(files) == 0 {
		t.Fatalf("no recordings in %s", dir)
	}
	for _, path := range files {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			body, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			status := http.StatusOK
			if m := statusInName.FindStringSubmatch(name); m != nil {
				status, _ = strconv.Atoi(m[1])
			}
			switch ext := filepath.Ext(name); {
			case ext == ".json":
				conformJSON(t, name, body)
			case ext == ".html":
				// The key pages: sniffed whatever the Content-Type says.
				for _, ct := range []string{"text/html;charset=utf-8", "application/json", ""} {
					_, err := censusacs.ParseResponse(status, http.Header{"Content-Type": {ct}}, body)
					pe := wantErr(t, err, providers.KindUnavailable, "upstream_misconfigured")
					if pe.Message != censusacs.KeyMessage {
						t.Errorf("Content-Type %q: message %q", ct, pe.Message)
					}
				}
			case status == http.StatusNoContent:
				_, err := censusacs.ParseResponse(status, http.Header{}, body)
				wantErr(t, err, providers.KindNotFound, "tract_not_found")
			case status == http.StatusBadRequest:
				_, err := censusacs.ParseResponse(status, http.Header{"Content-Type": {"text/plain"}}, body)
				wantErr(t, err, providers.KindUpstream, "upstream_error")
				text := strings.TrimSpace(string(body))
				if !strings.HasPrefix(text, "error: ") {
					t.Errorf("recorded 400 body %q does not look like the upstream's error lines", text)
				}
				if !strings.Contains(err.Error(), text) {
					t.Errorf("error %q lost the upstream's text %q", err, text)
				}
			default:
				t.Fatalf("no expectation for a %s recording with status %d; add one", ext, status)
			}
		})
	}
}

// conformJSON decodes a data recording and checks the values the README
// documents for it; any other data recording must at least decode into
// rows that carry their tract.
func conformJSON(t *testing.T, name string, body []byte) {
	t.Helper()
	rows, err := censusacs.ParseResponse(http.StatusOK, http.Header{"Content-Type": {"application/json;charset=utf-8"}}, body)
	if err != nil {
		t.Fatalf("decoding: %v", err)
	}
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for i, r := range rows {
		for _, col := range []string{censusacs.ColState, censusacs.ColCounty, censusacs.ColTract} {
			if r.Raw(col) == "" {
				t.Errorf("row %d has no %s", i, col)
			}
		}
	}
	tractOf := func(r censusacs.Row) providers.Tract {
		return providers.Tract{State: r.Raw(censusacs.ColState), County: r.Raw(censusacs.ColCounty), Tract: r.Raw(censusacs.ColTract)}
	}
	demographics := func(t *testing.T) *providers.Demographics {
		t.Helper()
		tr := tractOf(rows[0])
		row, err := censusacs.Select(rows, tr)
		if err != nil {
			t.Fatal(err)
		}
		d, err := censusacs.DemographicsFrom(tr, row, "2022")
		if err != nil {
			t.Fatal(err)
		}
		return d
	}

	switch {
	case strings.HasPrefix(name, "tract_profile_suppressed"):
		d := demographics(t)
		checkField(t, "total_population", d.TotalPopulation, i64(2106))
		checkField(t, "median_household_income", d.MedianHouseholdIncome, (*int64)(nil))
		checkField(t, "median_home_value", d.MedianHomeValue, (*int64)(nil))
		checkField(t, "median_gross_rent", d.MedianGrossRent, (*int64)(nil))
		checkField(t, "vacancy_rate", d.VacancyRate, f64(28.0))             // 7 / 25
		checkField(t, "owner_occupied_pct", d.OwnerOccupiedPct, f64(0))     // 0 / 18
		checkField(t, "renter_occupied_pct", d.RenterOccupiedPct, f64(100)) // 18 / 18
		checkField(t, "median_age", d.MedianAge, f64(21.3))
		checkField(t, "average_household_size", d.AverageHouseholdSize, f64(1.94))
	case strings.HasPrefix(name, "tract_profile"):
		d := demographics(t)
		if d.StateFIPS != "11" || d.CountyFIPS != "001" || d.CensusTract != "007703" {
			t.Errorf("tract %s %s %s", d.StateFIPS, d.CountyFIPS, d.CensusTract)
		}
		checkField(t, "total_population", d.TotalPopulation, i64(5213))
		checkField(t, "median_household_income", d.MedianHouseholdIncome, i64(59369))
		checkField(t, "median_home_value", d.MedianHomeValue, i64(412300))
		checkField(t, "median_gross_rent", d.MedianGrossRent, i64(1467))
		checkField(t, "vacancy_rate", d.VacancyRate, f64(9.0))             // 231 / 2571
		checkField(t, "owner_occupied_pct", d.OwnerOccupiedPct, f64(30))   // 702 / 2340
		checkField(t, "renter_occupied_pct", d.RenterOccupiedPct, f64(70)) // 1638 / 2340
		checkField(t, "median_age", d.MedianAge, f64(34.6))
		checkField(t, "average_household_size", d.AverageHouseholdSize, f64(2.21))
	case strings.HasPrefix(name, "tract_dc_annotations"):
		want := map[string]struct {
			households, income, moe *int64
			annotation              string
		}{
			"000903": {i64(358), i64(250001), nil, "250,000+"}, // top-coded estimate kept, -333333333 margin dropped
			"006804": {i64(18), nil, nil, "-"},                 // -666666666 / -222222222
			"007703": {i64(2340), i64(59369), i64(24077), ""},  // annotations null
		}
		if len(rows) != len(want) {
			t.Fatalf("%d rows, want %d", len(rows), len(want))
		}
		for code, w := range want {
			row, err := censusacs.Select(rows, providers.Tract{State: "11", County: "001", Tract: code})
			if err != nil {
				t.Fatalf("tract %s: %v", code, err)
			}
			hh, err1 := row.Int("B11012_001E")
			inc, err2 := row.Int("B19013_001E")
			moe, err3 := row.Int("B19013_001M")
			if err1 != nil || err2 != nil || err3 != nil {
				t.Fatalf("tract %s: %v %v %v", code, err1, err2, err3)
			}
			checkField(t, code+" B11012_001E", hh, w.households)
			checkField(t, code+" B19013_001E", inc, w.income)
			checkField(t, code+" B19013_001M", moe, w.moe)
			if got := row.Raw("B19013_001EA"); got != w.annotation {
				t.Errorf("%s B19013_001EA = %q, want %q", code, got, w.annotation)
			}
			if w.annotation == "" && row["B19013_001EA"] != nil {
				t.Errorf("%s: a null annotation decoded as %q", code, *row["B19013_001EA"])
			}
		}
	default:
		// A recording this test does not know yet: every value must read
		// as a number, a sentinel or a null, or be a name or annotation.
		for i, r := range rows {
			for col, v := range r {
				if v == nil || strings.HasSuffix(col, "EA") || strings.HasSuffix(col, "MA") ||
					col == "NAME" || col == "GEO_ID" {
					continue
				}
				if _, err := r.Float(col); err != nil {
					t.Errorf("row %d column %s: %v", i, col, err)
				}
			}
		}
	}
}
