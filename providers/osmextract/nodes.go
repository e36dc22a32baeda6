package osmextract

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"

	"github.com/paulmach/orb"
)

// nodeFile keeps the coordinates of every node of an extract, by id, in a
// temporary file rather than in memory: a dense array of 8 bytes a node
// (latitude and longitude in 1e-7 degrees, each offset so that a hole of
// the file, all zeros, reads as a node not seen), as osmium's
// dense_file_array does. The file is sparse: only the pages holding nodes
// take room on disk, and its resident memory is a fixed cache of pages,
// whatever the size of the extract (a state's extract holds hundreds of
// millions of nodes; their coordinates in memory would not fit the load's
// 300 MB).
//
// Nodes are written in increasing id order (an extract is sorted), so
// writes fill one page at a time; reads come after, from the ways and
// relations, and go through the cache: the nodes of a way are mostly
// neighbours in id, so a way's reads hit one or two pages.
type nodeFile struct {
	f *os.File

	// w is the page being written, wPage its number (-1: none yet).
	w     [pageBytes]byte
	wPage int64

	// cache holds cacheSlots pages read, each in the slot of its number
	// modulo cacheSlots; tags says which page a slot holds (-1: none).
	cache []byte
	tags  []int64
	reads int64 // pages read from the file, for tests
}

const (
	nodeBytes = 8
	pageBytes = 4096
	pageNodes = pageBytes / nodeBytes
	// cacheSlots pages of cache: 16 MiB.
	cacheSlots = 4096
	// maxNodeID bounds the ids kept: OpenStreetMap's node ids are below
	// 2^34 (about 13 billion in 2026); a negative id (files edited and not
	// uploaded) or a larger one is a node not kept, so a way using it is
	// skipped as broken.
	maxNodeID = 1 << 36
	// coordOffset makes every stored coordinate positive: 0 means no node.
	coordOffset = 1_900_000_000
)

// newNodeFile creates the file in dir ("" for the system's temporary
// directory) and unlinks it at once: it goes with the process, even on
// kill -9.
func newNodeFile(dir string) (*nodeFile, error) {
	f, err := os.CreateTemp(dir, "propertyd-nodes-*")
	if err != nil {
		return nil, fmt.Errorf("node coordinates file: %w", err)
	}
	_ = os.Remove(f.Name())
	n := &nodeFile{f: f, wPage: -1, cache: make([]byte, cacheSlots*pageBytes), tags: make([]int64, cacheSlots)}
	for i := range n.tags {
		n.tags[i] = -1
	}
	return n, nil
}

// put records node id at lat, lng (degrees). Ids must come in increasing
// order; one out of order or out of range is not kept.
func (n *nodeFile) put(id int64, lat, lng float64) error {
	if id < 0 || id >= maxNodeID {
		return nil
	}
	page := id / pageNodes
	if page != n.wPage {
		if page < n.wPage {
			return nil // out of order: the file is checked as sorted elsewhere
		}
		if err := n.flush(); err != nil {
			return err
		}
		n.w, n.wPage = [pageBytes]byte{}, page
	}
	off := (id % pageNodes) * nodeBytes
	putCoord(n.w[off:], lat)
	putCoord(n.w[off+4:], lng)
	return nil
}

// flush writes the page being written.
func (n *nodeFile) flush() error {
	if n.wPage < 0 {
		return nil
	}
	if _, err := n.f.WriteAt(n.w[:], n.wPage*pageBytes); err != nil {
		return fmt.Errorf("node coordinates file: %w", err)
	}
	n.invalidate(n.wPage)
	return nil
}

// invalidate drops page from the cache, written anew.
func (n *nodeFile) invalidate(page int64) {
	if slot := page % cacheSlots; n.tags[slot] == page {
		n.tags[slot] = -1
	}
}

// get returns node id's coordinates, ok false for a node not written.
func (n *nodeFile) get(id int64) (orb.Point, bool, error) {
	if id < 0 || id >= maxNodeID {
		return orb.Point{}, false, nil
	}
	page := id / pageNodes
	off := (id % pageNodes) * nodeBytes
	var b []byte
	if page == n.wPage {
		b = n.w[off : off+nodeBytes]
	} else {
		slot := page % cacheSlots
		buf := n.cache[slot*pageBytes : (slot+1)*pageBytes]
		if n.tags[slot] != page {
			m, err := n.f.ReadAt(buf, page*pageBytes)
			if err != nil && !errors.Is(err, io.EOF) {
				return orb.Point{}, false, fmt.Errorf("node coordinates file: %w", err)
			}
			clear(buf[m:]) // past the end: no nodes
			n.tags[slot] = page
			n.reads++
		}
		b = buf[off : off+nodeBytes]
	}
	lat, ok1 := getCoord(b)
	lng, ok2 := getCoord(b[4:])
	if !ok1 || !ok2 {
		return orb.Point{}, false, nil
	}
	return orb.Point{lng, lat}, true, nil
}

func (n *nodeFile) close() error { return n.f.Close() }

func putCoord(b []byte, deg float64) {
	v := uint32(int64(math.Round(deg*1e7)) + coordOffset)
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}

func getCoord(b []byte) (float64, bool) {
	v := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
	if v == 0 {
		return 0, false
	}
	return float64(int64(v)-coordOffset) / 1e7, true
}
