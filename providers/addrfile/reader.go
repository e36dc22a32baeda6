package addrfile

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// ErrLayout is the cause of the error Open returns for a file that is no
// layout it can read: it names the columns missing.
var ErrLayout = errors.New("not an address file")

// Options say how Open reads address files. The zero value recognizes
// each file's layout by its columns.
type Options struct {
	// Layout reads every file as this layout (LayoutOpenAddresses,
	// LayoutNAD, LayoutAddrfeat, LayoutMapping); empty: each file as the
	// layout its columns make it.
	Layout string
	// Mapping reads files of no preset layout (see Mapping). When set
	// and Layout is empty, every file is read by it.
	Mapping *Mapping
	// State is the state (USPS code or name) of rows that give none, as
	// OpenAddresses rows often do (the source's folder, us/ny, names it),
	// and of ADDRFEAT files whose name (tl_YYYY_SSCCC_addrfeat) does not
	// give it. Empty: such rows are refused.
	State string
	// City is the city of rows that give none. Empty: they have none.
	City string
}

// Item is one thing read: an address point or an address range, exactly
// one of the two set.
type Item struct {
	Point *providers.AddressPoint
	Range *providers.AddressRange
}

// Rejected is a row, or one side of an ADDRFEAT edge, that is not loaded:
// Next returns it as its error and goes on with the next. It is what the
// failures file lists.
type Rejected struct {
	File  string
	Index int // the row's (feature's) position in its file, from 0
	// Key is the row's identity when it has one (an OpenAddresses hash, a
	// NAD UUID, an edge's TLID and side).
	Key    string
	Reason string
	// NonNumeric is set for a range whose house numbers are not numbers
	// (TIGER's ranges of grid addresses such as N101): a known kind of
	// row real files hold, counted apart from the broken ones.
	NonNumeric bool
}

func (r *Rejected) Error() string {
	if r.Key != "" {
		return fmt.Sprintf("%s: row %d (%s): %s", filepath.Base(r.File), r.Index, r.Key, r.Reason)
	}
	return fmt.Sprintf("%s: row %d: %s", filepath.Base(r.File), r.Index, r.Reason)
}

// Summary is what a Reader read, once it has read everything.
type Summary struct {
	Points   int64 // address points read
	Ranges   int64 // address ranges read (one per side per name)
	Rejected int64 // rows and range sides refused, NonNumeric among them
	// NonNumeric counts range sides skipped because their numbers are not
	// numbers.
	NonNumeric int64
	// Coverage is the box of every point and range line read; the zero
	// box when nothing was.
	Coverage providers.BBox
	// Vintage is the TIGER/Line year of the ADDRFEAT files (from their
	// names, tl_2021_...), when they give one and agree; else "".
	Vintage string
	// States are the states of what was read, sorted.
	States []string
	// Layouts is the layout each file was read as, in the order given.
	Layouts []string
	// Warnings are for the operator: ADDRFEAT files of different years.
	Warnings []string
}

// result is an item or a refusal.
type result struct {
	item     Item
	rejected *Rejected
}

// file is one file of a Reader and how it is read.
type file struct {
	path   string
	layout layout
	state  string // ADDRFEAT: the state of the file's name, or Options.State
	year   int    // ADDRFEAT: the TIGER/Line year of its name, or 0
}

// Reader streams the points and ranges of address files, one file after
// the other, a row at a time in constant memory. Open makes one; it is
// not safe for concurrent use.
type Reader struct {
	files []file
	opts  Options
	cur   int
	rows  rows
	// pending are the items and refusals of an edge not yet returned.
	pending []result
	err     error
	sum     Summary
	states  map[string]bool
	boxed   bool
}

// tigerName reads the year and the state and county FIPS codes of an
// ADDRFEAT file named as the Census Bureau publishes it.
var tigerName = regexp.MustCompile(`(?i)^tl_(\d{4})_(\d{2})(\d{3})_addrfeat`)

// Open checks every file before any is read: that it can be opened, and
// that its columns make it a layout (Options.Layout, else recognized;
// ErrLayout naming the missing columns otherwise), and for ADDRFEAT that
// its state is known (from its name, else Options.State). An error leaves
// nothing open. Read the items with Next, then Finish; Close when done.
func Open(paths []string, opts Options) (*Reader, error) {
	if len(paths) == 0 {
		return nil, errors.New("no address files given")
	}
	if opts.Mapping != nil {
		if err := opts.Mapping.Validate(); err != nil {
			return nil, err
		}
	}
	var defState string
	if opts.State != "" {
		code, ok := address.StateCode(opts.State)
		if !ok {
			return nil, fmt.Errorf("state %q is not a US state, DC or territory", opts.State)
		}
		defState = code
	}
	r := &Reader{opts: opts, states: map[string]bool{}}
	r.opts.State = defState
	for _, p := range paths {
		rs, spatial, err := openRows(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		cols := rs.columns()
		rs.close()
		lay, err := chooseLayout(cols, spatial, opts)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		f := file{path: p, layout: lay}
		switch {
		case lay.name == LayoutAddrfeat:
			if m := tigerName.FindStringSubmatch(filepath.Base(p)); m != nil {
				f.year, _ = strconv.Atoi(m[1])
				f.state, _ = address.StateOfFIPS(m[2])
			}
			if f.state == "" {
				f.state = defState
			}
			if f.state == "" {
				return nil, fmt.Errorf("%s: an ADDRFEAT file has no state column and its name is not tl_YYYY_SSCCC_addrfeat: give the state", p)
			}
		case !lay.geometry && lay.mapping.Lat == "":
			return nil, fmt.Errorf("%s: %w: the mapping names no lat and lng columns and the file has no geometry", p, ErrLayout)
		}
		r.files = append(r.files, f)
		r.sum.Layouts = append(r.sum.Layouts, lay.name)
	}
	return r, nil
}

// Next returns the next point or range, and io.EOF after the last. A
// *Rejected error is about one row (or one side of an edge): it is
// counted, and the next call goes on. Any other error is fatal (a file
// that cannot be read further), and every later call returns it.
func (r *Reader) Next() (Item, error) {
	for {
		if r.err != nil {
			return Item{}, r.err
		}
		if len(r.pending) > 0 {
			x := r.pending[0]
			r.pending = r.pending[1:]
			if x.rejected != nil {
				return Item{}, r.reject(x.rejected)
			}
			return x.item, nil
		}
		if r.cur >= len(r.files) {
			return Item{}, io.EOF
		}
		f := &r.files[r.cur]
		if r.rows == nil {
			rs, _, err := openRows(f.path)
			if err != nil {
				r.err = fmt.Errorf("%s: %w", f.path, err)
				continue
			}
			r.rows = rs
		}
		rec, err := r.rows.next()
		if err == io.EOF {
			r.rows.close()
			r.rows = nil
			r.cur++
			continue
		}
		var re *rowError
		if errors.As(err, &re) {
			return Item{}, r.reject(&Rejected{File: f.path, Index: re.index, Reason: re.err.Error()})
		}
		if err != nil {
			r.err = fmt.Errorf("%s: %w", f.path, err)
			continue
		}
		if f.layout.name == LayoutAddrfeat {
			r.pending = append(r.pending, r.ranges(f, rec)...)
			continue
		}
		p, rej := r.point(f, rec)
		if rej != nil {
			return Item{}, r.reject(rej)
		}
		r.count(p.State, p.Point)
		r.sum.Points++
		return Item{Point: p}, nil
	}
}

// reject counts a refusal and returns it.
func (r *Reader) reject(x *Rejected) error {
	r.sum.Rejected++
	if x.NonNumeric {
		r.sum.NonNumeric++
	}
	return x
}

// count adds what was read to the states and the coverage.
func (r *Reader) count(state string, pts ...providers.Point) {
	r.states[state] = true
	for _, p := range pts {
		if !r.boxed {
			r.sum.Coverage = providers.BBox{West: p.Lng, South: p.Lat, East: p.Lng, North: p.Lat}
			r.boxed = true
			continue
		}
		c := &r.sum.Coverage
		c.West, c.East = min(c.West, p.Lng), max(c.East, p.Lng)
		c.South, c.North = min(c.South, p.Lat), max(c.North, p.Lat)
	}
}

// Finish returns the summary of what was read: call it after Next has
// returned io.EOF (before, it counts what was read so far).
func (r *Reader) Finish() Summary {
	s := r.sum
	s.States = nil
	for st := range r.states {
		s.States = append(s.States, st)
	}
	slices.Sort(s.States)
	year := 0
	for _, f := range r.files {
		switch {
		case f.year == 0:
		case year == 0:
			year = f.year
		case f.year != year:
			s.Warnings = append(s.Warnings, fmt.Sprintf("%s is TIGER/Line %d, the files before it %d: load each year as a dataset of its own",
				filepath.Base(f.path), f.year, year))
		}
	}
	if year != 0 && len(s.Warnings) == 0 {
		s.Vintage = strconv.Itoa(year)
	}
	s.Layouts = slices.Clone(s.Layouts)
	return s
}

// Close closes the file being read. It is safe to call more than once.
func (r *Reader) Close() error {
	if r.rows == nil {
		return nil
	}
	err := r.rows.close()
	r.rows = nil
	return err
}
