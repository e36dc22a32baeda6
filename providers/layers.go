package providers

import (
	"context"
	"encoding/json"
)

// LayerPolygon is one polygon of a layer of boundaries loaded from files:
// a census tract or county of TIGER/Line, a flood hazard area or FIRM panel
// of the NFHL. A layer's polygons are kept under a generation, so that a
// load writes the next one beside the one served.
type LayerPolygon struct {
	// Key identifies the polygon within its layer, as its publisher
	// does: a GEOID, a FLD_AR_ID. The store merges nothing by it.
	Key string
	// Attrs is a JSON object of the attributes the loader keeps (the
	// zone, the panel's effective date...); empty is stored as {}.
	Attrs json.RawMessage
	// Shape is the polygon or multipolygon as WKB (OGC well-known binary,
	// two dimensions, longitude then latitude, WGS84), holes included.
	// PolygonsAt leaves it nil: a lookup wants the polygon's identity and
	// attributes, and a flood zone's shape can be megabytes.
	Shape []byte
	// Box is the shape's bounding box, which PutPolygons computes from
	// Shape (a Box given to it is ignored).
	Box BBox
}

// PolygonStore keeps layers of polygons and finds those that hold a
// point. Both database engines implement it; its methods are safe for
// concurrent use.
//
// A point is inside a polygon when a ray from it crosses the shape's rings
// an odd number of times (the even-odd rule): a hole is outside, an island
// in a hole is inside. A point on an edge belongs to the side east of the
// edge (north of it, on an edge that runs east-west): where polygons tile
// an area, as a county's tracts or a map's flood zones do, a point on a
// border they share is in exactly one of them, and a point on a layer's
// outer border on its east or north side is in none.
type PolygonStore interface {
	// PutPolygons writes polys into layer under generation, in one
	// transaction. It returns KindInvalid (invalid_parameter), writing
	// nothing, for an empty layer, a generation below 1, or a polygon
	// with an empty key, Attrs that are no JSON object, or a shape that
	// is no two-dimensional polygon or multipolygon of valid coordinates.
	PutPolygons(ctx context.Context, layer string, generation int64, polys []LayerPolygon) error
	// StagePolygons writes polys into layer as PutPolygons does, under
	// load's generation, and load's checkpoint cp in the same transaction
	// (DatasetStore): a load cut short resumes after the last batch
	// written, none twice. With no polygons (a batch of features all
	// refused) it writes the checkpoint alone, and layer may be "". It
	// fails, writing nothing, when load is no longer its dataset's
	// pending load.
	StagePolygons(ctx context.Context, load *DatasetLoad, cp Checkpoint, layer string, polys []LayerPolygon) error
	// PolygonsAt returns the polygons of layer and generation that hold
	// p, by key (none is no error), without their shapes. It returns
	// KindInvalid for coordinates out of range.
	PolygonsAt(ctx context.Context, layer string, generation int64, p Point) ([]LayerPolygon, error)
	// DropPolygons deletes the polygons of layer and generation, a few
	// thousand a transaction so that no reader or writer waits for the
	// whole of it.
	DropPolygons(ctx context.Context, layer string, generation int64) error
}
