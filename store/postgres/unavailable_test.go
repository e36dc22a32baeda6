package postgres

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store/postgres/pgtest"
)

// A database that goes away is a 503 (KindUnavailable,
// database_unavailable) for every method, not a 500, and the store answers
// again once the database is back.
func TestUnreachableDatabaseIsUnavailable(t *testing.T) {
	u, r := pgtest.Relayed(t, freshSchema(t))
	db := openURL(t, u, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	saved, _, err := db.Save(ctx, providers.NewProperty{Property: providers.Property{Latitude: 1, Longitude: 2}, Canonical: "C", Keys: []string{"k"}})
	if err != nil {
		t.Fatal(err)
	}
	r.Stop()

	calls := map[string]func() error{
		"Ping":          func() error { return db.Ping(ctx) },
		"Property":      func() error { _, err := db.Property(ctx, saved.ID); return err },
		"PropertyByKey": func() error { _, err := db.PropertyByKey(ctx, "k"); return err },
		"Nearest":       func() error { _, err := db.Nearest(ctx, saved.Point(), 100); return err },
		"Save": func() error {
			_, _, err := db.Save(ctx, providers.NewProperty{Property: providers.Property{Latitude: 1, Longitude: 2}, Canonical: "D"})
			return err
		},
		"Search": func() error {
			_, _, err := db.Search(ctx, providers.SearchFilter{Zip: "1", Page: 1, PerPage: 5})
			return err
		},
		"Section":        func() error { _, err := db.Section(ctx, "flood", "k"); return err },
		"PutSection":     func() error { return db.PutSection(ctx, providers.SectionRecord{Section: "flood", Key: "k"}) },
		"SeedProperties": func() error { return db.SeedProperties(ctx, []providers.Property{{}}) },
		"PutImportFacts": func() error { return db.PutImportFacts(ctx, saved.ID, providers.Facts{Bedrooms: ptr(2)}, "2026-01-01") },
	}
	for name, call := range calls {
		err := call()
		wantKind(t, err, providers.KindUnavailable, "database_unavailable")
		if msg := providers.As(err).Message; msg != "the database is unavailable" {
			t.Fatalf("%s: client-visible message %q; no driver text may reach a client", name, msg)
		}
	}

	r.Start()
	if err := db.Ping(ctx); err != nil {
		t.Fatalf("Ping once the database is back: %v", err)
	}
	if got, err := db.Property(ctx, saved.ID); err != nil || got.ID != saved.ID {
		t.Fatalf("Property once the database is back: %+v, %v", got, err)
	}
}

func TestOpenOfAnUnreachableDatabaseIsUnavailable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close() // nothing listens there now
	u := "postgres://postgres@" + addr + "/test?sslmode=disable"
	_, err = Open(context.Background(), u, Options{})
	wantKind(t, err, providers.KindUnavailable, "database_unavailable")
	_, err = VersionAt(context.Background(), u)
	wantKind(t, err, providers.KindUnavailable, "database_unavailable")
}
