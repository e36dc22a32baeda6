package storetest

import (
	"context"
	"math"
	"testing"

	"github.com/propertyd/propertyd/providers"
)

func init() {
	register("NearestFindsTheClosestWithinRadius", testNearestFindsTheClosestWithinRadius)
	register("NearestAcrossTheAntimeridianAndNearThePoles", testNearestAcrossTheAntimeridianAndNearThePoles)
	register("NearestRejectsBadArguments", testNearestRejectsBadArguments)
}

// offset returns the point d metres from p along bearing (degrees from north).
func offset(p providers.Point, bearing, d float64) providers.Point {
	const r = 6371008.8
	la, lo, b, a := p.Lat*math.Pi/180, p.Lng*math.Pi/180, bearing*math.Pi/180, d/r
	la2 := math.Asin(math.Sin(la)*math.Cos(a) + math.Cos(la)*math.Sin(a)*math.Cos(b))
	lo2 := lo + math.Atan2(math.Sin(b)*math.Sin(a)*math.Cos(la), math.Cos(a)-math.Sin(la)*math.Sin(la2))
	lng := math.Mod(lo2*180/math.Pi+540, 360) - 180
	return providers.Point{Lat: la2 * 180 / math.Pi, Lng: lng}
}

func saveAt(t *testing.T, db interface {
	Save(context.Context, providers.NewProperty) (*providers.Property, bool, error)
}, name string, pt providers.Point) *providers.Property {
	t.Helper()
	p, _, err := db.Save(context.Background(), NewAt(name, pt.Lat, pt.Lng))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func testNearestFindsTheClosestWithinRadius(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	center := providers.Point{Lat: 39.7817, Lng: -89.6501}
	far := saveAt(t, db, "FAR", offset(center, 90, 80))        // 80 m east
	near := saveAt(t, db, "NEAR", offset(center, 0, 30))       // 30 m north
	mid := saveAt(t, db, "MID", offset(center, 225, 45))       // 45 m south-west
	saveAt(t, db, "ELSEWHERE", offset(center, 180, 5_000_000)) // another continent

	for _, tc := range []struct {
		radius float64
		want   *providers.Property
	}{
		{50, near}, {31, near}, {1000, near},
		{29, nil}, {1, nil},
	} {
		got, err := db.Nearest(ctx, center, tc.radius)
		if tc.want == nil {
			wantKind(t, err, providers.KindNotFound, "property_not_found")
			continue
		}
		if err != nil || got.ID != tc.want.ID {
			t.Fatalf("Nearest(radius %v) = %+v, %v; want %s", tc.radius, got, err, tc.want.StreetAddress)
		}
	}
	// From beside the far one, it is the nearest; the 30 m one is then 85 m away.
	got, err := db.Nearest(ctx, offset(center, 90, 75), 50)
	if err != nil || got.ID != far.ID {
		t.Fatalf("Nearest next to FAR = %+v, %v", got, err)
	}
	got, err = db.Nearest(ctx, offset(center, 225, 40), 10)
	if err != nil || got.ID != mid.ID {
		t.Fatalf("Nearest next to MID = %+v, %v", got, err)
	}
}

func testNearestAcrossTheAntimeridianAndNearThePoles(t *testing.T, open Opener) {
	ctx := context.Background()
	db := open(t, nil)
	fiji := providers.Point{Lat: -16.5, Lng: 179.9998}
	east := saveAt(t, db, "FIJI EAST", fiji)
	pole := providers.Point{Lat: 89.9995, Lng: 10}
	polar := saveAt(t, db, "POLAR", pole)
	for _, tc := range []struct {
		name  string
		from  providers.Point
		rad   float64
		want  int64
		found bool
	}{
		{"west of the antimeridian finds east of it", providers.Point{Lat: -16.5, Lng: -179.9998}, 100, east.ID, true},
		{"too far across the antimeridian", providers.Point{Lat: -16.5, Lng: -179.999}, 100, 0, false},
		{"across the pole", providers.Point{Lat: 89.9995, Lng: -170}, 150, polar.ID, true},
		{"the pole itself", providers.Point{Lat: 90, Lng: 0}, 60, polar.ID, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := db.Nearest(ctx, tc.from, tc.rad)
			if !tc.found {
				wantKind(t, err, providers.KindNotFound, "property_not_found")
				return
			}
			if err != nil || got.ID != tc.want {
				t.Fatalf("Nearest(%+v, %v) = %+v, %v; want id %d", tc.from, tc.rad, got, err, tc.want)
			}
		})
	}
}

func testNearestRejectsBadArguments(t *testing.T, open Opener) {
	db := open(t, nil)
	for _, tc := range []struct {
		p providers.Point
		r float64
	}{
		{providers.Point{Lat: 95}, 10}, {providers.Point{Lng: -200}, 10},
		{providers.Point{}, 0}, {providers.Point{}, -5}, {providers.Point{}, math.NaN()},
	} {
		_, err := db.Nearest(context.Background(), tc.p, tc.r)
		wantKind(t, err, providers.KindInvalid, "invalid_parameter")
	}
}
