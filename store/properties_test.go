package store_test

import (
	"context"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/store"
)

func TestDatabaseErrorsDoNotLeakSQL(t *testing.T) {
	db, _ := openTemp(t)
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	_, _, err := db.Search(context.Background(), providers.SearchFilter{Zip: "12345", Page: 1, PerPage: 5})
	wantKind(t, err, providers.KindInternal, "internal_error")
	if msg := providers.As(err).Message; msg != "database error" {
		t.Fatalf("client-visible message %q, want the generic \"database error\"", msg)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("second Close: %v, want nil (Close is idempotent)", err)
	}
}

// total returns the number of records matching f.
func total(t testing.TB, db *store.DB, f providers.SearchFilter) int {
	t.Helper()
	f.Page, f.PerPage = 1, 1
	_, n, err := db.Search(context.Background(), f)
	if err != nil {
		t.Fatalf("Search(%+v): %v", f, err)
	}
	return n
}
