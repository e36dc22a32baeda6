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
