package addrfile

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/dataload"
)

func init() {
	dataload.Register(dataload.Kind{
		Name:  providers.KindAddresses,
		Short: "address points and TIGER/Line address ranges: addresses matched without the Census geocoder",
		Summary: "address points (OpenAddresses CSV or GeoJSON, the USDOT National Address Database text file, " +
			"or any file with -mapping) and TIGER/Line address ranges (tl_YYYY_SSCCC_addrfeat: a .zip as published, " +
			"a .shp, GeoJSON or a GeoPackage)",
		Layers: []string{providers.LayerAddressPoints, providers.LayerAddressRanges},
		Flags:  flags,
		Stage:  stage,
		Drop:   drop,
	})
}

// flags declares the options of an addresses load and returns the Open
// that reads them.
func flags(fs *flag.FlagSet) func(dataload.Input) (dataload.Source, error) {
	state := fs.String("state", "", "the `state` (USPS code or name) of rows that name none (an OpenAddresses source's folder, us/ny/...)")
	city := fs.String("city", "", "the `city` of rows that name none")
	layout := fs.String("layout", "", "the files' `layout`: "+layoutList()+" (default: told by their columns)")
	mapping := fs.String("mapping", "", "a YAML `file` mapping another file's columns: number, street, unit, city, state, zip, lat, lng, key")
	return func(in dataload.Input) (dataload.Source, error) {
		opts := Options{Layout: *layout, City: *city}
		if *state != "" {
			code, ok := address.StateCode(*state)
			if !ok {
				return nil, fmt.Errorf("-state %q is not a US state, DC or territory", *state)
			}
			opts.State = code
		}
		if *mapping != "" {
			m, err := ReadMapping(*mapping)
			if err != nil {
				return nil, err
			}
			opts.Mapping, opts.Layout = m, LayoutMapping
		}
		return openSource(in, opts)
	}
}

// ReadMapping reads a Mapping from a YAML file, refusing fields it does
// not know, and validates it.
func ReadMapping(path string) (*Mapping, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var m Mapping
	if err := dec.Decode(&m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if err := m.Validate(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &m, nil
}

// Meta is what an addresses dataset keeps in providers.Dataset.Meta: the
// states its points and ranges are in (USPS codes), by which the local
// geocoder knows which datasets may hold an address, its counts, and the
// layout each file was read as.
type Meta struct {
	States     []string `json:"states"`
	Points     int64    `json:"points"`
	Ranges     int64    `json:"ranges"`
	NonNumeric int64    `json:"non_numeric,omitempty"`
	Layouts    []string `json:"layouts,omitempty"`
}

// source is a Reader as the loading lifecycle reads a dataset: each item
// a feature of its layer, each refusal a dataload.Rejected.
type source struct {
	r *Reader
}

// openSource opens in's files with opts (see Open) as a dataload.Source.
func openSource(in dataload.Input, opts Options) (dataload.Source, error) {
	r, err := Open(in.Files, opts)
	if err != nil {
		return nil, err
	}
	return &source{r: r}, nil
}

// The bytes a feature counts for in a batch: a point's fields and point,
// a range's fields and line.
const pointSize, rangeFixed, vertexSize = 96, 96, 16

func (s *source) Next() (dataload.Feature, error) {
	it, err := s.r.Next()
	var rej *Rejected
	switch {
	case errors.As(err, &rej):
		return dataload.Feature{}, &dataload.Rejected{File: rej.File, Index: rej.Index, Key: rej.Key, Reason: rej.Reason}
	case err != nil:
		return dataload.Feature{}, err
	case it.Point != nil:
		return dataload.Feature{Layer: providers.LayerAddressPoints, Row: *it.Point, Size: pointSize}, nil
	case it.Range != nil:
		return dataload.Feature{Layer: providers.LayerAddressRanges, Row: *it.Range,
			Size: rangeFixed + vertexSize*len(it.Range.Line)}, nil
	}
	return dataload.Feature{}, io.ErrUnexpectedEOF
}

func (s *source) Finish() (providers.Dataset, []string, error) {
	sum := s.r.Finish()
	if sum.Points+sum.Ranges == 0 {
		return providers.Dataset{}, nil, fmt.Errorf("no address point or range could be read (%d rows refused)", sum.Rejected)
	}
	meta, err := json.Marshal(Meta{States: sum.States, Points: sum.Points, Ranges: sum.Ranges,
		NonNumeric: sum.NonNumeric, Layouts: sum.Layouts})
	if err != nil {
		return providers.Dataset{}, nil, err
	}
	var warnings []string
	warnings = append(warnings, sum.Warnings...)
	if sum.NonNumeric > 0 {
		warnings = append(warnings, fmt.Sprintf("%d range sides had numbers that are not numbers (letters, as some Midwestern ranges have) and were skipped: see the failures file", sum.NonNumeric))
	}
	return providers.Dataset{Vintage: sum.Vintage, Coverage: sum.Coverage, Meta: meta}, warnings, nil
}

func (s *source) Close() error { return s.r.Close() }

// stage writes one batch of an addresses load: the points or the ranges
// of one layer, with the checkpoint, in one transaction.
func stage(ctx context.Context, st providers.DatasetStore, load *providers.DatasetLoad, cp providers.Checkpoint, layer string, rows []any) error {
	as, ok := st.(providers.AddressStore)
	if !ok {
		return errors.New("addresses: the store keeps no address points and ranges")
	}
	var (
		points []providers.AddressPoint
		ranges []providers.AddressRange
	)
	for _, row := range rows {
		switch v := row.(type) {
		case providers.AddressPoint:
			points = append(points, v)
		case providers.AddressRange:
			ranges = append(ranges, v)
		default:
			return fmt.Errorf("addresses: a %T is no address point or range", row)
		}
	}
	return as.StageAddresses(ctx, load, cp, points, ranges)
}

// drop drops a retired generation's points and ranges.
func drop(ctx context.Context, st providers.DatasetStore, name string, generation int64) error {
	as, ok := st.(providers.AddressStore)
	if !ok {
		return errors.New("addresses: the store keeps no address points and ranges")
	}
	return as.DropAddresses(ctx, generation)
}

// layoutList is the layouts -layout takes, for its help.
func layoutList() string {
	return strings.Join([]string{LayoutOpenAddresses, LayoutNAD, LayoutAddrfeat}, ", ")
}
