package postgres

import (
	"context"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// TestAFailedSectionWriteLeavesThePoolUsable: a section write the server
// refuses (PostgreSQL's text holds no NUL) fails alone: it is not stored,
// and the writes and reads after it, on a pool of one connection, answer
// as usual. The write's transaction, committed without waiting for the
// disk, is not left open on a connection the pool hands out again.
func TestAFailedSectionWriteLeavesThePoolUsable(t *testing.T) {
	db := openOneConn(t)
	ctx := context.Background()
	at := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	rec := providers.SectionRecord{Section: "amenities", Key: "38.9,-77.03@2000", Data: []byte(`{"total_count":1}`),
		Source: "osm-extract", Vintage: "2026-11-20", FetchedAt: at, ExpiresAt: at.Add(7 * 24 * time.Hour)}
	bad := rec
	bad.Source = "osm\x00extract"
	if err := db.PutSection(ctx, bad); err == nil {
		t.Fatal("a source holding a NUL byte was stored")
	}
	if _, err := db.Section(ctx, rec.Section, rec.Key); providers.KindOf(err) != providers.KindNotFound {
		t.Fatalf("after the failed write: %v, want nothing stored", err)
	}
	for range 3 {
		if err := db.PutSection(ctx, rec); err != nil {
			t.Fatalf("a write after the failed one: %v", err)
		}
	}
	got, err := db.Section(ctx, rec.Section, rec.Key)
	if err != nil || string(got.Data) != string(rec.Data) || got.Vintage != rec.Vintage || !got.ExpiresAt.Equal(rec.ExpiresAt) {
		t.Fatalf("read back %+v, %v; want the value written", got, err)
	}
}
