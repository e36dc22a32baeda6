package service

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
)

// The columns an import file may have. Only the facts (providers.FactFields)
// are attributes a record can take from a file; everything else a record holds
// (coordinates, county, FIPS code, tract, canonical spelling) comes from the
// geocoder, so columns for them would be ignored or contradict it, and are
// errors like any unknown column.
var (
	importRequired = []string{"street", "state"}
	importOptional = append([]string{"city", "zip", "unit"}, providers.FactFields...)
)

// FailureReasonColumn is the column a failures file adds. An import ignores
// it, so a failures file can be fixed and imported again.
const FailureReasonColumn = "reason"

// ImportChunkRows is how many rows are read, then geocoded together, then
// saved: the Census geocoder's batch limit, so each chunk takes one call.
const ImportChunkRows = 10000

// ImportHeader maps the known column names of a file to their positions.
type ImportHeader map[string]int

// ParseImportHeader reads the header row: names are trimmed and compared
// case-insensitively (a UTF-8 byte order mark is dropped). Unknown,
// duplicate and missing required columns are errors naming them all.
func ParseImportHeader(names []string) (ImportHeader, error) {
	h := ImportHeader{}
	var unknown, dup []string
	for i, raw := range names {
		if i == 0 {
			raw = strings.TrimPrefix(raw, "\uFEFF")
		}
		name := strings.ToLower(strings.TrimSpace(raw))
		switch {
		case name == FailureReasonColumn:
		case !slices.Contains(importRequired, name) && !slices.Contains(importOptional, name):
			unknown = append(unknown, strconv.Quote(strings.TrimSpace(raw)))
		case h.has(name):
			dup = append(dup, name)
		default:
			h[name] = i
		}
	}
	var missing []string
	for _, name := range importRequired {
		if !h.has(name) {
			missing = append(missing, name)
		}
	}
	var errs []error
	if len(unknown) > 0 {
		errs = append(errs, fmt.Errorf("unknown column(s) %s (known: %s)", strings.Join(unknown, ", "),
			strings.Join(append(slices.Clone(importRequired), importOptional...), ", ")))
	}
	if len(dup) > 0 {
		errs = append(errs, fmt.Errorf("column(s) %s given twice", strings.Join(dup, ", ")))
	}
	if len(missing) > 0 {
		errs = append(errs, fmt.Errorf("missing required column(s) %s", strings.Join(missing, ", ")))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return h, nil
}

func (h ImportHeader) has(name string) bool { _, ok := h[name]; return ok }

// get returns the trimmed value of column name in fields, "" when absent.
func (h ImportHeader) get(fields []string, name string) string {
	i, ok := h[name]
	if !ok || i >= len(fields) {
		return ""
	}
	return strings.TrimSpace(fields[i])
}

// importRow is one data row on its way into the store.
type importRow struct {
	fields []string // as read, for the failures file
	n      address.Normalized
	facts  providers.Facts // nil facts: leave unchanged
	reason string          // why the row failed; "" while it has not

	rec *providers.Property // the record its key resolved to before geocoding
	geo int                 // index of its building in the chunk's batch
	loc providers.Location  // the match Resolve took for it
	m   providers.Match     // how it matched
}

// parseRow validates one data row: its address as Lookup would (PO boxes
// and invalid fields are failures) and its attributes.
func (h ImportHeader) parseRow(fields []string) importRow {
	row := importRow{fields: fields, geo: -1}
	var reasons []string
	n, err := address.Normalize(providers.Address{
		Street: h.get(fields, "street"), Unit: h.get(fields, "unit"), City: h.get(fields, "city"),
		State: h.get(fields, "state"), Zip: h.get(fields, "zip"),
	})
	if err != nil {
		reasons = append(reasons, reasonOf(err))
	}
	row.n = n
	for _, name := range providers.FactFields {
		if pe := providers.SetFact(&row.facts, name, h.get(fields, name)); pe != nil {
			reasons = append(reasons, pe.Parameter+": "+pe.Message)
		}
	}
	for _, pe := range providers.CheckFacts(&row.facts, time.Now()) {
		reasons = append(reasons, pe.Parameter+": "+pe.Message)
	}
	row.reason = strings.Join(reasons, "; ")
	return row
}

// reasonOf is the failures-file text of a row's error: the fields and what
// is wrong with each, else the error's message.
func reasonOf(err error) string {
	e := providers.As(err)
	if len(e.Candidates) > 0 {
		cands := make([]string, len(e.Candidates))
		for i, c := range e.Candidates {
			cands[i] = c.MatchedAddress
		}
		return e.Code + ": " + e.Message + ": " + strings.Join(cands, " | ")
	}
	if e.Code == providers.CodeInexactMatch {
		return e.Code + ": " + e.Message
	}
	if len(e.Params) == 0 {
		return e.Message
	}
	parts := make([]string, len(e.Params))
	for i, p := range e.Params {
		parts[i] = p.Parameter + ": " + p.Message
	}
	return strings.Join(parts, "; ")
}

// ImportStore is what an import needs of the store.
type ImportStore interface {
	PropertyByKey(ctx context.Context, key string) (*providers.Property, error)
	Save(ctx context.Context, np providers.NewProperty) (*providers.Property, bool, error)
	PutImportFacts(ctx context.Context, id int64, f providers.Facts, asOf string) error
}

// ImportSummary counts what an import did. Read = Matched + Failed once
// the run is complete; Matched = Created + Updated + Unchanged, and the
// sum of ByMatch.
type ImportSummary struct {
	Read, Matched, Created, Updated, Unchanged, Failed int
	// Exact, NonExact and Database count the matched rows by how they
	// matched (the type of their providers.Match); they sum to Matched.
	Exact, NonExact, Database int
}

// MatchCounts writes how the matched rows matched: "3 exact, 1
// non_exact, 2 database" (absent types left out), or "none".
func (s ImportSummary) MatchCounts() string {
	var parts []string
	for _, c := range []struct {
		n    int
		name string
	}{{s.Exact, providers.MatchExact}, {s.NonExact, providers.MatchNonExact}, {s.Database, providers.MatchDatabase}} {
		if c.n > 0 {
			parts = append(parts, Thousands(c.n)+" "+c.name)
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

// Importer loads rows into a store. It reads ImportChunkRows rows at a
// time, looks each row's key up, geocodes the distinct buildings of the
// rows not found in one batch, then saves the rows in file order, so a
// later row of the file wins over an earlier one for the same property.
// The geocoder is sent each building as the file writes it (see
// address.Normalized.Building), so rows spelling one building differently
// are rows of their own in the batch (one call all the same) and end as
// one record through the geocoder's canonical address.
type Importer struct {
	Store    ImportStore
	Geocoder providers.BatchGeocoder
	// Source is the geocoder module's name, recorded on new records.
	Source string
	// Mode is what a row accepts of the geocoder's answer, as a lookup's
	// match= (see Resolve).
	Mode MatchMode
	// Matched, when set, hears how each matched row matched, with its
	// record, in file order.
	Matched func(fields []string, rec *providers.Property, m providers.Match)
	// Now stamps new records; nil means time.Now.
	Now func() time.Time
	// ChunkRows overrides ImportChunkRows (tests).
	ChunkRows int
	// BatchTimeout bounds one batch call; 0 means none beyond ctx.
	BatchTimeout time.Duration
	// Counties, when set, names the counties of new records: the batch
	// answer has their FIPS codes but not their names. One reverse geocode
	// per county per import, at the first new record in it.
	Counties providers.ReverseGeocoder
	// countyNames remembers, by FIPS code, the names found (or "" when
	// the reverse geocoder could not say) across chunks.
	countyNames map[string]string
	// Fail receives each failed row and why.
	Fail func(fields []string, reason string) error
	// Progress, when set, hears how many rows are done and what is
	// happening; force marks the start of a long step.
	Progress func(done int, phase string, force bool)
}

// Run imports every row r yields after the header. It stops early only for
// a runtime failure: the store failing, the geocoder's batch call failing,
// ctx ending, or the failures file not being writable. Rows saved before
// that stay saved; running the import again resumes cheaply.
func (im *Importer) Run(ctx context.Context, h ImportHeader, r *csv.Reader) (ImportSummary, error) {
	var sum ImportSummary
	chunk := im.ChunkRows
	if chunk <= 0 {
		chunk = ImportChunkRows
	}
	for {
		rows, err := im.read(h, r, chunk)
		sum.Read += len(rows)
		if len(rows) > 0 {
			if perr := im.chunk(ctx, rows, &sum); perr != nil {
				return sum, perr
			}
		}
		if errors.Is(err, io.EOF) {
			return sum, nil
		}
		if err != nil {
			return sum, err
		}
	}
}

// read returns up to n parsed rows; io.EOF once the file is done.
func (im *Importer) read(h ImportHeader, r *csv.Reader, n int) ([]importRow, error) {
	var rows []importRow
	for len(rows) < n {
		fields, err := r.Read()
		var perr *csv.ParseError
		switch {
		case errors.Is(err, io.EOF):
			return rows, io.EOF
		case errors.As(err, &perr) && errors.Is(err, csv.ErrFieldCount):
			rows = append(rows, importRow{fields: fields, geo: -1,
				reason: fmt.Sprintf("has %d fields, the header has %d", len(fields), r.FieldsPerRecord)})
		case errors.As(err, &perr):
			rows = append(rows, importRow{geo: -1, reason: "unreadable CSV: " + perr.Error()})
		case err != nil:
			return rows, fmt.Errorf("reading the file: %w", err)
		default:
			rows = append(rows, h.parseRow(fields))
		}
	}
	return rows, nil
}

// chunk imports rows: lookup, one batch for the new buildings, then saves.
func (im *Importer) chunk(ctx context.Context, rows []importRow, sum *ImportSummary) error {
	var addrs []providers.Address
	index := map[providers.Address]int{}
	for i := range rows {
		row := &rows[i]
		if row.reason != "" {
			continue
		}
		rec, err := im.Store.PropertyByKey(ctx, row.n.Key())
		switch {
		case err == nil:
			m, err := databaseMatch(row.n, rec, im.Mode)
			row.rec, row.m = rec, m
			if err != nil {
				row.reason = reasonOf(err)
			}
			continue
		case providers.KindOf(err) != providers.KindNotFound:
			return fmt.Errorf("reading the database: %w", err)
		}
		b := row.n.Building()
		j, ok := index[b]
		if !ok {
			j = len(addrs)
			index[b] = j
			addrs = append(addrs, b)
		}
		row.geo = j
	}

	var matches []providers.BatchMatch
	if len(addrs) > 0 {
		im.progress(sum.Read-len(rows), "geocoding "+CountOf(len(addrs), "address", "addresses"), true)
		bctx, cancel := ctx, context.CancelFunc(func() {})
		if im.BatchTimeout > 0 {
			bctx, cancel = context.WithTimeout(ctx, im.BatchTimeout)
		}
		var err error
		matches, err = im.Geocoder.GeocodeAll(bctx, addrs)
		cancel()
		if err != nil {
			return fmt.Errorf("geocoding %s: %w", CountOf(len(addrs), "address", "addresses"), err)
		}
		if len(matches) != len(addrs) {
			return fmt.Errorf("the geocoder answered %d of %d addresses", len(matches), len(addrs))
		}
		shareMatches(rows, matches)
		im.nameCounties(ctx, matches, sum.Read-len(rows))
	}

	now := time.Now
	if im.Now != nil {
		now = im.Now
	}
	// latest holds the records this chunk wrote, as they now are, since a
	// record looked up above may have changed since.
	latest := map[int64]*providers.Property{}
	for i := range rows {
		row := &rows[i]
		im.progress(sum.Read-len(rows)+i, "saving", false)
		if row.reason == "" && row.rec == nil {
			if m := matches[row.geo]; m.Err != nil {
				row.reason = reasonOf(m.Err)
			} else if loc, how, err := Resolve(row.n, m.Location, im.Mode); err != nil {
				row.reason = reasonOf(err)
			} else {
				row.loc, row.m = loc, how
			}
		}
		if row.reason != "" {
			sum.Failed++
			if err := im.Fail(row.fields, row.reason); err != nil {
				return fmt.Errorf("writing the failures file: %w", err)
			}
			continue
		}
		rec := row.rec
		if rec == nil {
			np := NewRecord(row.loc, row.m, row.n, im.Source, now())
			saved, created, err := im.Store.Save(ctx, np)
			if err != nil {
				if providers.KindOf(err) == providers.KindInvalid {
					// The geocoder's answer was unusable (coordinates out of range).
					sum.Failed++
					if ferr := im.Fail(row.fields, reasonOf(err)); ferr != nil {
						return fmt.Errorf("writing the failures file: %w", ferr)
					}
					continue
				}
				return fmt.Errorf("saving: %w", err)
			}
			if created && row.facts.Known() {
				if err := im.Store.PutImportFacts(ctx, saved.ID, row.facts, now().UTC().Format(time.DateOnly)); err != nil {
					return fmt.Errorf("updating record %d: %w", saved.ID, err)
				}
				saved = withFacts(saved, row.facts)
			}
			latest[saved.ID] = saved
			if created {
				im.matched(sum, row, saved)
				sum.Created++
				continue
			}
			rec = saved
		} else if l, ok := latest[rec.ID]; ok {
			rec = l
		}
		im.matched(sum, row, rec)
		if !attributesChange(rec, row) {
			sum.Unchanged++
			continue
		}
		if err := im.Store.PutImportFacts(ctx, rec.ID, row.facts, now().UTC().Format(time.DateOnly)); err != nil {
			return fmt.Errorf("updating record %d: %w", rec.ID, err)
		}
		latest[rec.ID] = withFacts(rec, row.facts)
		sum.Updated++
	}
	im.progress(sum.Read, "saving", false)
	return nil
}

// matched counts row, matched to rec, and tells Matched.
func (im *Importer) matched(sum *ImportSummary, row *importRow, rec *providers.Property) {
	sum.Matched++
	switch row.m.Type {
	case providers.MatchExact:
		sum.Exact++
	case providers.MatchNonExact:
		sum.NonExact++
	default:
		sum.Database++
	}
	if im.Matched != nil {
		im.Matched(row.fields, rec, row.m)
	}
}

// shareMatches gives a row whose spelling the geocoder could not match the
// match of another row of the chunk with the same key: they are one
// property ("42 OBrien Ct" and "42 O'Brien Ct", where TIGER knows only
// the second), as they would be had the matching row been imported first.
func shareMatches(rows []importRow, matches []providers.BatchMatch) {
	matched := map[string]int{}
	for i := range rows {
		if g := rows[i].geo; g >= 0 && matches[g].Err == nil {
			matched[rows[i].n.Key()] = g
		}
	}
	for i := range rows {
		if g := rows[i].geo; g >= 0 && matches[g].Err != nil {
			if j, ok := matched[rows[i].n.Key()]; ok {
				rows[i].geo = j
			}
		}
	}
}

// nameCounties fills in the county names the batch answer lacks, through
// the reverse geocoder, once per county not seen before in this import. A
// county the reverse geocoder cannot name (it failed, or put the point in
// another county) stays unnamed, as without a reverse geocoder; the import
// goes on.
func (im *Importer) nameCounties(ctx context.Context, matches []providers.BatchMatch, done int) {
	if im.Counties == nil {
		return
	}
	if im.countyNames == nil {
		im.countyNames = map[string]string{}
	}
	for i := range matches {
		loc := &matches[i].Location
		if matches[i].Err != nil || loc.County != "" || loc.FIPSCode == "" {
			continue
		}
		name, known := im.countyNames[loc.FIPSCode]
		if !known {
			im.progress(done, "naming county "+loc.FIPSCode, true)
			if r, err := im.Counties.Reverse(ctx, loc.Point); err == nil && r.FIPSCode == loc.FIPSCode {
				name = r.County
			}
			im.countyNames[loc.FIPSCode] = name
		}
		loc.County = name
	}
}

// attributesChange reports whether the row sets a fact of rec to a new
// value; an empty cell in the file changes nothing.
func attributesChange(rec *providers.Property, row *importRow) bool {
	have := rec.Facts()
	return !reflect.DeepEqual(have, overlay(have, row.facts))
}

// overlay returns base with every fact f knows put over it.
func overlay(base, f providers.Facts) providers.Facts {
	out, _ := providers.MergeFacts([]providers.SourcedFacts{{Facts: f}, {Priority: 1, Facts: base}})
	return out
}

// withFacts returns a copy of rec with the import's facts put over its
// own: what the record reads as after PutImportFacts while the import
// outranks every dataset (its priority is 0).
func withFacts(rec *providers.Property, f providers.Facts) *providers.Property {
	cp := *rec
	cp.SetFacts(overlay(rec.Facts(), f), rec.FactsOrigin)
	return &cp
}

func (im *Importer) progress(done int, phase string, force bool) {
	if im.Progress != nil {
		im.Progress(done, phase, force)
	}
}

// CountOf writes n with the noun in the right number: "1 address",
// "2,500 addresses", for progress and error messages.
func CountOf(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}

// Thousands writes n with a comma between groups of three digits.
func Thousands(n int) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}
