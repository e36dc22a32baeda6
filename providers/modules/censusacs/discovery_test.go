package censusacs_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jarcoal/httpmock"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/kits/providertest"
	"github.com/propertyd/propertyd/providers/modules/censusacs"
)

// now is late 2026, when the 2024 release is out.
var now = time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC)

func TestNewestYearPicksTheNewestDetailedTables(t *testing.T) {
	entry := func(vintage string, path ...string) string {
		return `{"c_vintage": ` + vintage + `, "c_dataset": ["` + strings.Join(path, `", "`) + `"], "c_isAvailable": true}`
	}
	doc := func(entries ...string) string {
		return `{"@type": "dcat:Catalog", "dataset": [` + strings.Join(entries, ",\n") + `]}`
	}
	for _, tc := range []struct {
		name, body, want string // want "" means an error
	}{
		{"the excerpt of the real document", readTestdata(t, "discovery_excerpt.json"), "2023"},
		{"newest of several", doc(entry("2021", "acs", "acs5"), entry("2023", "acs", "acs5"), entry("2022", "acs", "acs5")), "2023"},
		{"1-year and profile releases are not the detailed tables",
			doc(entry("2022", "acs", "acs5"), entry("2024", "acs", "acs1"), entry("2024", "acs", "acs5", "profile"), entry("2024", "acs", "acs5", "subject")), "2022"},
		{"an unavailable release is skipped",
			doc(entry("2022", "acs", "acs5"), `{"c_vintage": 2023, "c_dataset": ["acs", "acs5"], "c_isAvailable": false}`), "2022"},
		{"a time series has no vintage", doc(`{"c_dataset": ["timeseries", "eits", "resconst"], "c_isTimeseries": true}`, entry("2022", "acs", "acs5")), "2022"},
		{"a vintage after this year is nonsense", doc(entry("2022", "acs", "acs5"), entry("2031", "acs", "acs5")), "2022"},
		{"a vintage before the 5-year series is nonsense", doc(entry("2007", "acs", "acs5")), ""},
		{"a vintage written as a string", doc(entry(`"2023"`, "acs", "acs5")), "2023"},
		{"no 5-year release", doc(entry("2024", "acs", "acs1")), ""},
		{"empty catalogue", `{"dataset": []}`, ""},
		{"not JSON", "<html><title>Service Unavailable</title></html>", ""},
		{"cut short", readTestdata(t, "discovery_excerpt.json")[:900], ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := censusacs.NewestYear(strings.NewReader(tc.body), now)
			if tc.want == "" {
				wantErr(t, err, providers.KindUpstream, "upstream_bad_response")
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("NewestYear = %q, %v; want %q", got, err, tc.want)
			}
		})
	}
}

// fakeClock is a settable clock. Safe for concurrent use.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// syncBuffer collects log output. Safe for concurrent use.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}
func (s *syncBuffer) String() string { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// latestClient is a client following the newest release, on mt, at clk,
// logging into logs.
func latestClient(t *testing.T, mt *httpmock.MockTransport, clk *fakeClock, logs *syncBuffer) *censusacs.Client {
	t.Helper()
	c, err := censusacs.New(providers.Settings{Client: &http.Client{Transport: mt}, Now: clk.Now,
		Logger: slog.New(slog.NewTextHandler(logs, nil))})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func TestLatestAsksForTheNewestReleaseDiscoveredOnceADay(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterACS(mt, base, map[string]map[string]string{cook.GEOID(): cookData()})
	providertest.RegisterACSDiscovery(mt, base, 2021, 2022, 2023)
	clk := &fakeClock{t: now}
	c := latestClient(t, mt, clk, &syncBuffer{})

	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			d, err := c.Demographics(context.Background(), cook)
			if err != nil || d.Vintage != "2023 ACS 5-year" {
				t.Errorf("demographics %+v, %v; want the 2023 release", d, err)
			}
		}()
	}
	wg.Wait()
	if n := providertest.ACSDiscoveryCalls(mt, base); n != 1 {
		t.Fatalf("20 first fetches asked for the discovery document %d times, want 1", n)
	}
	if !c.Supersedes("2022 ACS 5-year") || c.Supersedes("2023 ACS 5-year") || c.Supersedes("tract_not_found") {
		t.Fatal("the 2023 release must supersede 2022 values, and only them")
	}

	// Within the day nothing is asked again.
	clk.Add(23 * time.Hour)
	if _, err := c.Housing(context.Background(), cook); err != nil {
		t.Fatal(err)
	}
	c.Supersedes("2022 ACS 5-year")
	if n := providertest.ACSDiscoveryCalls(mt, base); n != 1 {
		t.Fatalf("discovery asked %d times within a day, want 1", n)
	}

	// A day later the 2024 release is out: the fetch that notices the
	// discovery is due asks for 2023 without waiting, and the next ones
	// for 2024.
	clk.Add(2 * time.Hour)
	providertest.RegisterACSDiscovery(mt, base, 2022, 2023, 2024)
	if d, err := c.Demographics(context.Background(), cook); err != nil || (d.Vintage != "2023 ACS 5-year" && d.Vintage != "2024 ACS 5-year") {
		t.Fatalf("demographics %+v, %v", d, err)
	}
	waitUntil(t, "the 2024 release is learned", func() bool { return c.Year() == "2024" })
	if d, err := c.Demographics(context.Background(), cook); err != nil || d.Vintage != "2024 ACS 5-year" {
		t.Fatalf("demographics %+v, %v; want the 2024 release", d, err)
	}
	if n := providertest.ACSDiscoveryCalls(mt, base); n != 1 { // counted since the document was replaced
		t.Fatalf("discovery asked %d times on the second day, want 1", n)
	}
}

func TestAFailedDiscoveryFallsBackAndIsLogged(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterACS(mt, base, map[string]map[string]string{cook.GEOID(): cookData()})
	providertest.RegisterACSDiscoveryError(mt, base, http.StatusServiceUnavailable)
	clk, logs := &fakeClock{t: now}, &syncBuffer{}
	c := latestClient(t, mt, clk, logs)

	// Nothing learned yet: DefaultYear, and no stored value looks old.
	d, err := c.Demographics(context.Background(), cook)
	if err != nil || d.Vintage != censusacs.Vintage(censusacs.DefaultYear) {
		t.Fatalf("demographics %+v, %v; want the default year when discovery fails", d, err)
	}
	if c.Supersedes("2021 ACS 5-year") {
		t.Fatal("a year fallen back to superseded stored values")
	}
	if !strings.Contains(logs.String(), "could not discover the newest 5-year release") || !strings.Contains(logs.String(), "year=2022") {
		t.Fatalf("the failed discovery was not logged with the year used: %s", logs)
	}
	for range 5 {
		if _, err := c.Housing(context.Background(), cook); err != nil {
			t.Fatal(err)
		}
	}
	if n := providertest.ACSDiscoveryCalls(mt, base); n != 1 {
		t.Fatalf("discovery asked %d times within the retry time, want 1", n)
	}

	// An hour later it works: 2023 is learned.
	clk.Add(censusacs.DiscoveryRetry)
	providertest.RegisterACSDiscovery(mt, base, 2023)
	c.Supersedes("2022 ACS 5-year")
	waitUntil(t, "the 2023 release is learned", func() bool { return c.Year() == "2023" })

	// A day later discovery fails again: the last release learned stays.
	clk.Add(censusacs.DiscoveryTTL)
	providertest.RegisterACSDiscoveryError(mt, base, http.StatusInternalServerError)
	c.Supersedes("2022 ACS 5-year")
	waitUntil(t, "the second failure is logged", func() bool {
		return strings.Count(logs.String(), "could not discover") == 2
	})
	if d, err := c.Demographics(context.Background(), cook); err != nil || d.Vintage != "2023 ACS 5-year" {
		t.Fatalf("demographics %+v, %v; want the last release learned, 2023", d, err)
	}
}

func TestAPinnedYearIsNeverDiscovered(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterACS(mt, base, map[string]map[string]string{cook.GEOID(): cookData()})
	c := newClient(t, mt, map[string]string{"year": "2023"})
	d, err := c.Demographics(context.Background(), cook)
	if err != nil || d.Vintage != "2023 ACS 5-year" {
		t.Fatalf("demographics %+v, %v; want the pinned 2023", d, err)
	}
	if !c.Supersedes("2022 ACS 5-year") || c.Supersedes("2024 ACS 5-year") {
		t.Fatal("a pinned 2023 must supersede 2022 values and leave 2024 ones")
	}
	if n := providertest.ACSDiscoveryCalls(mt, base); n != 0 {
		t.Fatalf("a pinned year asked for the discovery document %d times", n)
	}
}

// TestACSFakeDiscoveryHasTheRealShape holds the fake's discovery document
// to the excerpt of the real one: the same catalogue members, entries with
// no member the real entries lack, and the newest release read from it.
func TestACSFakeDiscoveryHasTheRealShape(t *testing.T) {
	mt := httpmock.NewMockTransport()
	providertest.RegisterACS(mt, base, nil)
	resp, err := (&http.Client{Transport: mt}).Get(censusacs.DiscoveryURL(base))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var fake, real map[string]any
	if err := json.NewDecoder(resp.Body).Decode(&fake); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(readTestdata(t, "discovery_excerpt.json")), &real); err != nil {
		t.Fatal(err)
	}
	if got, want := slices.Sorted(maps.Keys(fake)), slices.Sorted(maps.Keys(real)); !slices.Equal(got, want) {
		t.Errorf("catalogue members %v, the real document's %v", got, want)
	}
	realMembers := map[string]bool{}
	for _, e := range real["dataset"].([]any) {
		for k := range e.(map[string]any) {
			realMembers[k] = true
		}
	}
	for _, e := range fake["dataset"].([]any) {
		for k := range e.(map[string]any) {
			if !realMembers[k] {
				t.Errorf("the fake's dataset entries have %q, which the real ones do not", k)
			}
		}
	}
	body, _ := json.Marshal(fake)
	if y, err := censusacs.NewestYear(bytes.NewReader(body), now); err != nil || y != fmt.Sprint(providertest.ACSNewestYear) {
		t.Errorf("newest release in the fake's document: %q, %v; want %d", y, err, providertest.ACSNewestYear)
	}
}
