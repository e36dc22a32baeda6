package storetest

import (
	"context"
	"reflect"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("SectionsPutGetReplace", testSectionsPutGetReplace)
	register("MissingSectionRoundTripsAndIsReplacedByAValue", testMissingSectionRoundTripsAndIsReplacedByAValue)
	register("ExpiredSectionIsStillReturned", testExpiredSectionIsStillReturned)
	register("SectionWithoutDataOrTimes", testSectionWithoutDataOrTimes)
	register("BulkSectionWritesKeepTheNewerValue", testBulkSectionWritesKeepTheNewerValue)
}

// testBulkSectionWritesKeepTheNewerValue: the tracts of a state are
// written in one call; a value fetched later replaces a stored one (a
// Missing record included), an older one never does, the same values
// twice write nothing, and one invalid value writes none of them.
func testBulkSectionWritesKeepTheNewerValue(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	rec := func(key string, at time.Time, missing bool, data string) providers.SectionRecord {
		return providers.SectionRecord{Section: "demographics", Key: key, Data: []byte(data), Source: "census-acs",
			Vintage: "2023 ACS 5-year", FetchedAt: at, ExpiresAt: at.Add(time.Hour), Missing: missing}
	}
	if err := db.PutSection(ctx, rec("06001000100", t0, true, `{"code":"tract_not_found","message":"none"}`)); err != nil {
		t.Fatal(err)
	}
	if err := db.PutSection(ctx, rec("06001000200", t0.Add(2*time.Hour), false, `{"v":"newer"}`)); err != nil {
		t.Fatal(err)
	}
	batch := []providers.SectionRecord{
		rec("06001000100", t0.Add(time.Hour), false, `{"v":1}`),
		rec("06001000200", t0.Add(time.Hour), false, `{"v":"older"}`),
		rec("06001000300", t0.Add(time.Hour), false, `{"v":3}`),
	}
	n, err := db.CopySections(ctx, batch)
	if err != nil || n != 2 {
		t.Fatalf("CopySections = %d, %v; want 2 written (the Missing one replaced, the new one added)", n, err)
	}
	for key, want := range map[string]string{"06001000100": `{"v":1}`, "06001000200": `{"v":"newer"}`, "06001000300": `{"v":3}`} {
		got, err := db.Section(ctx, "demographics", key)
		if err != nil || string(got.Data) != want || got.Missing {
			t.Fatalf("%s after the bulk write: %+v, %v; want %s", key, got, err, want)
		}
	}
	if n, err := db.CopySections(ctx, batch); err != nil || n != 0 {
		t.Fatalf("the same values again: %d written, %v; want 0", n, err)
	}
	bad := []providers.SectionRecord{rec("06001000400", t0.Add(3*time.Hour), false, `{}`), {Key: "no-section"}}
	if _, err := db.CopySections(ctx, bad); providers.KindOf(err) != providers.KindInvalid {
		t.Fatalf("a batch with an invalid value: %v, want KindInvalid", err)
	}
	if _, err := db.Section(ctx, "demographics", "06001000400"); providers.KindOf(err) != providers.KindNotFound {
		t.Fatalf("a batch with an invalid value wrote the valid one: %v", err)
	}
}

func testSectionsPutGetReplace(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	fetched := time.Date(2024, 6, 1, 8, 30, 0, 123_999_999, time.FixedZone("PDT", -7*3600))
	first := providers.SectionRecord{
		Section: "demographics", Key: "53033005302", Data: []byte(`{"total_population":4211}`),
		Source: "census-acs", Vintage: "2022", FetchedAt: fetched, ExpiresAt: fetched.Add(30 * 24 * time.Hour),
	}
	if err := db.PutSection(ctx, first); err != nil {
		t.Fatal(err)
	}
	got, err := db.Section(ctx, "demographics", "53033005302")
	if err != nil {
		t.Fatal(err)
	}
	want := first
	want.FetchedAt = fetched.UTC().Truncate(time.Millisecond)
	want.ExpiresAt = first.ExpiresAt.UTC().Truncate(time.Millisecond)
	if !reflect.DeepEqual(*got, want) {
		t.Fatalf("Section =\n%+v\nwant\n%+v", *got, want)
	}

	second := providers.SectionRecord{
		Section: "demographics", Key: "53033005302", Data: []byte(`{"total_population":4300}`),
		Source: "census-acs", Vintage: "2023", FetchedAt: fetched.Add(time.Hour), ExpiresAt: fetched.Add(2 * time.Hour),
	}
	if err := db.PutSection(ctx, second); err != nil {
		t.Fatal(err)
	}
	got, err = db.Section(ctx, "demographics", "53033005302")
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Data) != `{"total_population":4300}` || got.Vintage != "2023" || !got.FetchedAt.Equal(second.FetchedAt.Truncate(time.Millisecond)) {
		t.Fatalf("after replacing, Section = %+v; want the second value", got)
	}

	// The same key under another section is another value.
	_, err = db.Section(ctx, "housing", "53033005302")
	wantKind(t, err, providers.KindNotFound, "section_not_found")
	_, err = db.Section(ctx, "demographics", "53033005303")
	wantKind(t, err, providers.KindNotFound, "section_not_found")
}

func testMissingSectionRoundTripsAndIsReplacedByAValue(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	miss := providers.SectionRecord{Section: "demographics", Key: "11001990000", Missing: true,
		Data: []byte(`{"code":"tract_not_found","message":"no figures"}`), Source: "census-acs",
		FetchedAt: at, ExpiresAt: at.Add(time.Hour)}
	if err := db.PutSection(ctx, miss); err != nil {
		t.Fatal(err)
	}
	got, err := db.Section(ctx, "demographics", "11001990000")
	if err != nil || !got.Missing {
		t.Fatalf("a missing record reads back as %+v, %v", got, err)
	}
	if e := got.MissingError(); e.Kind != providers.KindNotFound || e.Code != "tract_not_found" || e.Message != "no figures" {
		t.Fatalf("MissingError = %+v", e)
	}
	value := miss
	value.Missing, value.Data = false, []byte(`{"total_population":1}`)
	if err := db.PutSection(ctx, value); err != nil {
		t.Fatal(err)
	}
	if got, err = db.Section(ctx, "demographics", "11001990000"); err != nil || got.Missing {
		t.Fatalf("a value stored over a missing record reads back as %+v, %v", got, err)
	}
}

func testExpiredSectionIsStillReturned(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	long := time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC)
	r := providers.SectionRecord{Section: "flood", Key: "47.60621,-122.33207", Data: []byte(`{"zone":"X"}`),
		Source: "fema-nfhl", FetchedAt: long, ExpiresAt: long.Add(time.Hour)}
	if err := db.PutSection(ctx, r); err != nil {
		t.Fatal(err)
	}
	got, err := db.Section(ctx, "flood", "47.60621,-122.33207")
	if err != nil {
		t.Fatalf("expired section: %v; it must still be served as stale", err)
	}
	if !got.ExpiresAt.Equal(r.ExpiresAt) || string(got.Data) != `{"zone":"X"}` {
		t.Fatalf("expired section = %+v", got)
	}
}

func testSectionWithoutDataOrTimes(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	if err := db.PutSection(ctx, providers.SectionRecord{Section: "walkscore", Key: "k"}); err != nil {
		t.Fatal(err)
	}
	got, err := db.Section(ctx, "walkscore", "k")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Data) != 0 || !got.FetchedAt.IsZero() || !got.ExpiresAt.IsZero() {
		t.Fatalf("empty section = %+v; zero times must read back as zero", got)
	}
	wantKind(t, db.PutSection(ctx, providers.SectionRecord{Key: "k"}), providers.KindInvalid, "invalid_parameter")
	farFuture := time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)
	wantKind(t, db.PutSection(ctx, providers.SectionRecord{Section: "flood", Key: "k", ExpiresAt: farFuture}), providers.KindInvalid, "invalid_parameter")
}
