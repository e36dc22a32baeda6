// Package floodfile puts the FEMA flood maps loaded in the database
// (propertyd data load flood) in front of the flood module: a point on a
// loaded map's FIRM panels is answered from the map, with no call to FEMA;
// any other goes to the module (fema-nfhl, FEMA's NFHL service) as before.
// It wraps the module from outside, as the breaker does, and knows neither
// the service nor the database: the maps are listed through
// dataload.Served, their polygons read through providers.PolygonStore, and
// the section is built by package floodmap, the one definition the
// fema-nfhl module builds its own answers with, from the same attributes
// decoded the same way (json.Unmarshal into floodmap.HazardArea and
// floodmap.Panel), so both paths answer alike.
//
// # Where a map applies
//
// A map applies where its panels are: the union of its S_FIRM_PAN
// polygons, not its coverage box, which only finds the candidate maps. A
// point in the box but on no panel (a county's box holds parts of its
// neighbours) is asked of the module. A point on a panel but in no flood
// hazard area is answered from the map, as the service answers a point no
// area holds: RiskUndetermined, "No flood zone mapped at this point", with
// the panel. Where several maps' panels hold the point (a county's map
// loaded beside the state's), the one most recently effective answers,
// alone: the NFHL holds one map at a place, the newest.
//
// # Edges
//
// A point exactly on an edge is in the polygon east of it (north of it on
// an east-west edge), as the polygon store counts it; the service's
// intersects query counts it in both polygons and floodmap.Section takes
// the riskier. The two answer alike where the riskier lies east, and may
// differ where it lies west. Geocoded points rarely fall on an edge
// exactly.
package floodfile

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/floodmap"
)

// Source is the source of a flood section read from a loaded map, in the
// section value and in meta.sections; its vintage is the map's effective
// date (its newest panel's, providers.Dataset's Vintage).
const Source = "fema-nfhl-file"

// Maps is what Flood reads the loaded maps through: the store's
// providers.DatasetStore (which maps are served) and
// providers.PolygonStore (their polygons at a point).
type Maps interface {
	dataload.Lister
	PolygonsAt(ctx context.Context, layer string, generation int64, p providers.Point) ([]providers.LayerPolygon, error)
}

// ListEvery is how often Supersedes looks again at which maps are served,
// in the background: a load through the command line (or on another
// instance) shows within it.
const ListEvery = 10 * time.Second

// Flood is a flood source answering from Local where a loaded map's panels
// hold the point and from Next elsewhere, Next's calls run under Around
// (its breaker: an answer from a map never counts for or against the
// service). Build it with New or as a literal; it is safe for concurrent
// use when Local and Next are, and its fields must not change once it is
// in use.
type Flood struct {
	Local  Maps
	Next   providers.FloodProvider
	Around providers.Around
	// Now is the clock of Supersedes; nil means time.Now.
	Now func() time.Time

	once   sync.Once
	served *dataload.Served

	// vintages are the effective dates of the maps served (Supersedes).
	vintages dataload.Vintages
}

var (
	_ providers.FloodProvider   = (*Flood)(nil)
	_ providers.Superseder      = (*Flood)(nil)
	_ providers.SectionUpgrader = (*Flood)(nil)
)

// New returns the maps of local in front of next, next's calls run under
// around.
func New(local Maps, next providers.FloodProvider, around providers.Around) *Flood {
	return &Flood{Local: local, Next: next, Around: around}
}

// Flood answers the flood section at p: from the loaded map whose panels
// hold p when one does, else from Next. Errors are Next's, and the
// store's when it fails (KindUnavailable database_unavailable...): a
// database that does not answer is no reason to ask FEMA for what the
// operator loaded. A stored map whose attributes cannot be read is
// KindInternal.
func (f *Flood) Flood(ctx context.Context, p providers.Point) (*providers.Flood, error) {
	if f.Local != nil {
		out, err := f.local(ctx, p)
		switch {
		case err != nil && providers.KindOf(err) != providers.KindInvalid:
			return nil, err
		case err == nil && out != nil:
			return out, nil
		}
	}
	var out *providers.Flood
	call := func(ctx context.Context) error {
		var err error
		out, err = f.Next.Flood(ctx, p)
		return err
	}
	if f.Around == nil {
		return out, call(ctx)
	}
	err := f.Around(ctx, call)
	return out, err
}

// maps is the flood maps served, listed again when a load is published.
func (f *Flood) maps() *dataload.Served {
	f.once.Do(f.init)
	return f.served
}

// init sets up the listings of the maps served, once: Local and Now are
// set by then.
func (f *Flood) init() {
	f.served = &dataload.Served{Store: f.Local, Kind: providers.KindFlood}
	f.vintages = dataload.Vintages{Every: ListEvery, Now: f.now, List: func(ctx context.Context) ([]string, error) {
		ds, err := f.Local.Datasets(ctx, providers.KindFlood)
		dates := make([]string, len(ds))
		for i, d := range ds {
			dates[i] = d.Vintage
		}
		return dates, err
	}}
}

// now is Now, else time.Now.
func (f *Flood) now() time.Time {
	if f.Now != nil {
		return f.Now()
	}
	return time.Now()
}

// local answers from the map whose panels hold p; nil (and no error) when
// none does.
func (f *Flood) local(ctx context.Context, p providers.Point) (*providers.Flood, error) {
	var out *providers.Flood
	read, err := f.maps().Read(ctx, p, func(ds []providers.Dataset) error {
		out = nil // a read a publication overtook is read again whole
		m, panels, err := f.mapAt(ctx, ds, p)
		if err != nil || m == nil {
			return err
		}
		zones, err := decoded[floodmap.HazardArea](f.Local.PolygonsAt(ctx, floodmap.LayerHazard, m.Generation, p))
		if err != nil {
			return err
		}
		out = floodmap.Section(zones, panels)
		out.Source, out.Vintage = Source, m.Vintage
		return nil
	})
	if err != nil {
		return nil, storeError(err)
	}
	if !read {
		return nil, nil // no map's box holds p
	}
	return out, nil
}

// mapAt returns the map among ds (those whose box holds p) whose panels
// hold p, with those panels: the most recently effective when several
// do, then the last loaded, then the first by name. It returns a nil map
// when no panel holds p.
func (f *Flood) mapAt(ctx context.Context, ds []providers.Dataset, p providers.Point) (*providers.Dataset, []floodmap.Panel, error) {
	var (
		best   *providers.Dataset
		panels []floodmap.Panel
	)
	for i := range ds {
		d := &ds[i]
		pans, err := decoded[floodmap.Panel](f.Local.PolygonsAt(ctx, floodmap.LayerPanel, d.Generation, p))
		if err != nil {
			return nil, nil, err
		}
		if len(pans) == 0 {
			continue
		}
		if best == nil || d.Vintage > best.Vintage ||
			d.Vintage == best.Vintage && d.LoadedAt.After(best.LoadedAt) {
			best, panels = d, pans
		}
	}
	return best, panels, nil
}

// decoded decodes the attributes of polygons read from a layer, as the
// fema-nfhl module decodes the service's: the loader wrote them as the
// service's JSON (floodmap.HazardArea, floodmap.Panel).
func decoded[T any](polys []providers.LayerPolygon, err error) ([]T, error) {
	if err != nil {
		return nil, err
	}
	out := make([]T, 0, len(polys))
	for _, pl := range polys {
		var v T
		if err := json.Unmarshal(pl.Attrs, &v); err != nil {
			return nil, providers.Wrap(err, providers.KindInternal, providers.CodeInternalError,
				"a loaded flood map holds attributes that cannot be read")
		}
		out = append(out, v)
	}
	return out, nil
}

// storeError is err as the store's failure: its own *providers.Error as
// is, anything else the database's unavailability.
func storeError(err error) error {
	var pe *providers.Error
	if errors.As(err, &pe) {
		return err
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return providers.As(err)
	}
	return providers.Wrap(err, providers.KindUnavailable, providers.CodeDatabaseUnavailable,
		"the flood maps loaded in the database could not be read")
}

// UpgradeSection is Next's (providers.SectionUpgrader) when it has one: a
// flood value stored by an older version is read in the current shape
// whichever path wrote it. Other values come back as they are.
func (f *Flood) UpgradeSection(data []byte) []byte {
	if u, ok := f.Next.(providers.SectionUpgrader); ok {
		return u.UpgradeSection(data)
	}
	return data
}

// Supersedes reports whether an answer read from a map of the effective
// date vintage was read from a map no longer served: the map it came from
// was replaced by a load of a newer one (or by none), so the stored
// answer is refreshed (from the new map, or from the service) rather than
// served until its TTL. Answers from the service carry no vintage and are
// never superseded. It reads the dates listed at most
// ListEvery ago, listing them again in the background, and reports false
// until the first listing ends.
func (f *Flood) Supersedes(vintage string) bool {
	if f.Local == nil {
		return false
	}
	f.once.Do(f.init)
	return f.vintages.Gone(vintage)
}
