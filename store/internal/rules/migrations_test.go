package rules

import (
	"reflect"
	"testing"
	"testing/fstest"
)

func TestLoadMigrationsOrdersAndValidatesNames(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name    string
		fsys    fstest.MapFS
		want    []int
		wantErr bool
	}{
		{"sorted by number, not by name", fstest.MapFS{"10_c.sql": file("c"), "2_b.sql": file("b"), "0001_a.sql": file("a")}, []int{1, 2, 10}, false},
		{"other files ignored", fstest.MapFS{"0001_a.sql": file("a"), "README.md": file("x")}, []int{1}, false},
		{"empty", fstest.MapFS{}, nil, false},
		{"no number", fstest.MapFS{"init.sql": file("a")}, nil, true},
		{"no name", fstest.MapFS{"0001.sql": file("a")}, nil, true},
		{"zero", fstest.MapFS{"0000_a.sql": file("a")}, nil, true},
		{"duplicate version", fstest.MapFS{"0001_a.sql": file("a"), "1_b.sql": file("b")}, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ms, err := LoadMigrations(tc.fsys)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, want error %v", err, tc.wantErr)
			}
			var got []int
			for _, m := range ms {
				got = append(got, m.Version)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("versions %v, want %v", got, tc.want)
			}
		})
	}
}
