package main

import (
	"bufio"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"time"
)

// The generated extract of the osm rows: features spread uniformly over a
// box of about 20 km by 20 km (Washington, DC's size), the mix the
// osm-load rows describe. Node coordinates carry OSM's 100-nanodegree
// granularity.
var (
	extractBox  = [4]float64{38.80, 38.98, -77.15, -76.925} // south, north, west, east
	extractDate = time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
)

// The mix of the generated extract: of every ten features, eight are
// four-node buildings, one a place of an amenity category, one an address
// point.
const (
	buildingShare = 0.8
	placeShare    = 0.1
)

// placeTags are the places' tags, one kind after another: each of the
// seven amenity categories.
var placeTags = [][2]string{
	{"amenity", "school"}, {"amenity", "hospital"}, {"shop", "supermarket"}, {"leisure", "park"},
	{"highway", "bus_stop"}, {"amenity", "restaurant"}, {"amenity", "cafe"}, {"amenity", "bank"},
}

// buildingKinds are the buildings' building= values, in turn.
var buildingKinds = []string{"house", "detached", "apartments", "terrace", "yes", "house", "residential", "semidetached_house"}

// extractCounts splits features into buildings, places and address points.
func extractCounts(features int) (buildings, places, addresses int) {
	buildings = int(float64(features) * buildingShare)
	places = int(float64(features) * placeShare)
	return buildings, places, features - buildings - places
}

// writeExtract writes a generated extract of features features to path as
// an .osm.pbf file (the OpenStreetMap wiki's "PBF Format": a header block,
// then blocks of 8,000 dense nodes, then blocks of 8,000 ways, each block
// zlib-compressed), sorted as Geofabrik's are: nodes, then ways, by id. It
// is written here, field by field, since the PBF reader the project uses
// writes nothing; osmextract's own test of it reads it back.
func writeExtract(path string, features int) error {
	return writeExtractIn(path, features, extractBox)
}

// writeExtractIn is writeExtract over box (south, north, west, east)
// rather than extractBox: the county-cold-local rows' extract covers
// their generated county.
func writeExtractIn(path string, features int, box [4]float64) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := &pbfWriter{w: bufio.NewWriterSize(f, 1<<20), box: box}
	if err := w.header(); err != nil {
		f.Close()
		return err
	}
	buildings, places, addresses := extractCounts(features)
	rng := rand.New(rand.NewPCG(22, 2026))
	south, north, west, east := box[0], box[1], box[2], box[3]
	point := func() (float64, float64) {
		return south + rng.Float64()*(north-south), west + rng.Float64()*(east-west)
	}
	var nb nodeBlock
	id := int64(0)
	flush := func() error {
		if len(nb.ids) == 0 {
			return nil
		}
		err := w.block(nb.encode())
		nb.reset()
		return err
	}
	add := func(lat, lng float64, tags ...string) error {
		id++
		nb.add(id, lat, lng, tags)
		if len(nb.ids) == blockSize {
			return flush()
		}
		return nil
	}
	for i := range places {
		lat, lng := point()
		t := placeTags[i%len(placeTags)]
		if err := add(lat, lng, t[0], t[1], "name", "Place "+strconv.Itoa(i)); err != nil {
			f.Close()
			return err
		}
	}
	for i := range addresses {
		lat, lng := point()
		if err := add(lat, lng, "addr:housenumber", strconv.Itoa(100+i%9000), "addr:street", "Bench Street "+strconv.Itoa(i/9000),
			"addr:city", "Washington", "addr:postcode", "20005"); err != nil {
			f.Close()
			return err
		}
	}
	// A building is a square of about 10 m, its four corners nodes of
	// their own.
	firstCorner := id + 1
	const side = 0.00009
	for range buildings {
		lat, lng := point()
		for _, c := range [4][2]float64{{0, 0}, {0, side}, {side, side}, {side, 0}} {
			if err := add(lat+c[0], lng+c[1]); err != nil {
				f.Close()
				return err
			}
		}
	}
	if err := flush(); err != nil {
		f.Close()
		return err
	}
	var wb wayBlock
	for i := range buildings {
		c := firstCorner + int64(4*i)
		wb.add(int64(i+1), []int64{c, c + 1, c + 2, c + 3, c}, "building", buildingKinds[i%len(buildingKinds)],
			"building:levels", strconv.Itoa(1+i%4), "start_date", strconv.Itoa(1890+i%130))
		if len(wb.ways) == blockSize || i == buildings-1 {
			if err := w.block(wb.encode()); err != nil {
				f.Close()
				return err
			}
			wb = wayBlock{}
		}
	}
	if err := w.w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// blockSize is the elements of one block, as osmium and osmosis write.
const blockSize = 8000

// pbfWriter writes the file's blobs.
type pbfWriter struct {
	w   *bufio.Writer
	buf bytes.Buffer
	box [4]float64 // south, north, west, east
}

// header writes the OSMHeader blob: the box, the features a reader needs
// and the replication timestamp (the extract's date).
func (w *pbfWriter) header() error {
	var bbox, hb pb
	nano := func(v float64) int64 { return int64(math.Round(v * 1e9)) }
	bbox.sint(1, nano(w.box[2]))
	bbox.sint(2, nano(w.box[3]))
	bbox.sint(3, nano(w.box[1]))
	bbox.sint(4, nano(w.box[0]))
	hb.bytes(1, bbox.b)
	hb.str(4, "OsmSchema-V0.6")
	hb.str(4, "DenseNodes")
	hb.str(5, "Sort.Type_then_ID")
	hb.str(16, "propertyd bench")
	hb.uint(32, uint64(extractDate.Unix()))
	return w.blob("OSMHeader", hb.b)
}

// block writes one OSMData blob.
func (w *pbfWriter) block(data []byte) error { return w.blob("OSMData", data) }

// blob writes raw, zlib-compressed, as a blob of type typ with its header.
func (w *pbfWriter) blob(typ string, raw []byte) error {
	w.buf.Reset()
	zw := zlib.NewWriter(&w.buf)
	if _, err := zw.Write(raw); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	var blob, hdr pb
	blob.uint(2, uint64(len(raw)))
	blob.bytes(3, w.buf.Bytes())
	hdr.str(1, typ)
	hdr.uint(3, uint64(len(blob.b)))
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(hdr.b)))
	for _, b := range [][]byte{n[:], hdr.b, blob.b} {
		if _, err := w.w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// stringTable is a block's string table: index 0 is the empty string, as the
// format requires.
type stringTable struct {
	index map[string]int
	s     []string
}

func (t *stringTable) id(s string) int {
	if t.index == nil {
		t.index, t.s = map[string]int{"": 0}, []string{""}
	}
	if i, ok := t.index[s]; ok {
		return i
	}
	t.index[s] = len(t.s)
	t.s = append(t.s, s)
	return len(t.s) - 1
}

// primitiveBlock is a PrimitiveBlock of one group: the string table, the
// group, a granularity of 100 nanodegrees and dates in seconds.
func (t *stringTable) primitiveBlock(group []byte) []byte {
	var st, blk pb
	for _, s := range t.s {
		st.str(1, s)
	}
	blk.bytes(1, st.b)
	blk.bytes(2, group)
	blk.uint(17, 100)
	blk.uint(18, 1000)
	return blk.b
}

// nodeBlock gathers the dense nodes of one block.
type nodeBlock struct {
	st             stringTable
	ids, lats, lng []int64
	keyvals        []uint64
}

func (nb *nodeBlock) reset() { *nb = nodeBlock{} }

func (nb *nodeBlock) add(id int64, lat, lng float64, tags []string) {
	nb.ids = append(nb.ids, id)
	nb.lats = append(nb.lats, int64(math.Round(lat*1e7)))
	nb.lng = append(nb.lng, int64(math.Round(lng*1e7)))
	for _, s := range tags {
		nb.keyvals = append(nb.keyvals, uint64(nb.st.id(s)))
	}
	nb.keyvals = append(nb.keyvals, 0)
}

func (nb *nodeBlock) encode() []byte {
	nb.st.id("") // the table holds its empty string even when no node has a tag
	var dense, info, group pb
	versions := make([]uint64, len(nb.ids))
	stamps := make([]int64, len(nb.ids))
	for i := range versions {
		versions[i] = 1
	}
	stamps[0] = extractDate.Unix() // in the block's date granularity: seconds
	info.packedUint(1, versions)
	info.packedSint(2, stamps)
	dense.packedSint(1, deltas(nb.ids))
	dense.bytes(5, info.b)
	dense.packedSint(8, deltas(nb.lats))
	dense.packedSint(9, deltas(nb.lng))
	dense.packedUint(10, nb.keyvals)
	group.bytes(2, dense.b)
	return nb.st.primitiveBlock(group.b)
}

// wayBlock gathers the ways of one block, each encoded as it comes.
type wayBlock struct {
	st   stringTable
	ways [][]byte
}

func (wb *wayBlock) add(id int64, refs []int64, tags ...string) {
	var way, info pb
	keys := make([]uint64, 0, len(tags)/2)
	vals := make([]uint64, 0, len(tags)/2)
	for i := 0; i+1 < len(tags); i += 2 {
		keys = append(keys, uint64(wb.st.id(tags[i])))
		vals = append(vals, uint64(wb.st.id(tags[i+1])))
	}
	info.uint(1, 1)
	info.uint(2, uint64(extractDate.Unix()))
	way.uint(1, uint64(id))
	way.packedUint(2, keys)
	way.packedUint(3, vals)
	way.bytes(4, info.b)
	way.packedSint(8, deltas(refs))
	wb.ways = append(wb.ways, way.b)
}

func (wb *wayBlock) encode() []byte {
	var group pb
	for _, w := range wb.ways {
		group.bytes(3, w)
	}
	return wb.st.primitiveBlock(group.b)
}

func deltas(vs []int64) []int64 {
	out := make([]int64, len(vs))
	prev := int64(0)
	for i, v := range vs {
		out[i], prev = v-prev, v
	}
	return out
}

// pb is a protocol buffer message written field by field.
type pb struct{ b []byte }

func (p *pb) key(field, wire int) { p.b = binary.AppendUvarint(p.b, uint64(field<<3|wire)) }

func (p *pb) uint(field int, v uint64) {
	p.key(field, 0)
	p.b = binary.AppendUvarint(p.b, v)
}

func (p *pb) sint(field int, v int64) {
	p.key(field, 0)
	p.b = binary.AppendUvarint(p.b, zigzag(v))
}

func (p *pb) bytes(field int, b []byte) {
	p.key(field, 2)
	p.b = binary.AppendUvarint(p.b, uint64(len(b)))
	p.b = append(p.b, b...)
}

func (p *pb) str(field int, s string) { p.bytes(field, []byte(s)) }

func (p *pb) packedUint(field int, vs []uint64) {
	var body []byte
	for _, v := range vs {
		body = binary.AppendUvarint(body, v)
	}
	p.bytes(field, body)
}

func (p *pb) packedSint(field int, vs []int64) {
	var body []byte
	for _, v := range vs {
		body = binary.AppendUvarint(body, zigzag(v))
	}
	p.bytes(field, body)
}

func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

// extractSummary describes the generated extract of features features.
func extractSummary(features int) string {
	b, p, a := extractCounts(features)
	return fmt.Sprintf("%s four-node buildings, %s places, %s address points", thousands(int64(b)), thousands(int64(p)), thousands(int64(a)))
}
