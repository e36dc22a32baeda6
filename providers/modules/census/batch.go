package census

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
	"github.com/propertyd/propertyd/providers/tiger"
)

// MaxBatchRows is the most rows the upstream accepts in one batch file; the
// Census documentation sets the limit at 10,000 records. GeocodeBatch rejects
// larger inputs rather than have the upstream fail them.
const MaxBatchRows = 10000

// BatchRow is one address of a batch. ID must be non-empty and unique within
// the batch: the upstream answers in its own order and the ID is what ties an
// answer back to its row.
type BatchRow struct {
	ID      string
	Address providers.Address
}

// BatchResult is the upstream's answer for one BatchRow. When Matched is
// false Location is empty; Tie reports that the address matched several
// candidates and none was chosen. MatchType is "Exact" or "Non_Exact" for a
// match. The batch answer carries no county name, so Location.County is
// always empty; FIPSCode and CensusTract are set for a match.
type BatchResult struct {
	ID        string
	Matched   bool
	Tie       bool
	MatchType string
	Location  providers.Location
}

// The match column values of a batch answer.
const (
	batchMatch   = "Match"
	batchNoMatch = "No_Match"
	batchTie     = "Tie"
)

// GeocodeBatch geocodes up to MaxBatchRows addresses in one upstream call,
// for bulk imports, and returns one result per row in the order of rows.
//
// It returns KindInvalid for more than MaxBatchRows rows or a missing or
// duplicate ID (without calling the upstream), KindUpstream when the upstream
// fails or its answer cannot be read or lacks a row, KindTimeout and
// KindCanceled as Geocode does. No rows means no call and no results.
func (c *Client) GeocodeBatch(ctx context.Context, rows []BatchRow) (_ []BatchResult, err error) {
	defer func() { err = upstream.Scrub(err, batchPrivate(rows)...) }()
	if len(rows) == 0 {
		return nil, nil
	}
	if len(rows) > MaxBatchRows {
		return nil, providers.Errorf(providers.KindInvalid, providers.CodeBatchTooLarge,
			"a batch holds at most %d rows, got %d", MaxBatchRows, len(rows))
	}
	seen := make(map[string]bool, len(rows))
	for i, r := range rows {
		id := batchKey(r.ID)
		switch {
		case id == "":
			return nil, providers.Errorf(providers.KindInvalid, providers.CodeInvalidBatch, "row %d has no ID", i+1)
		case strings.ContainsAny(r.ID, "\r\n"):
			return nil, providers.Errorf(providers.KindInvalid, providers.CodeInvalidBatch, "row %d has a line break in its ID", i+1)
		case seen[id]:
			return nil, providers.Errorf(providers.KindInvalid, providers.CodeInvalidBatch, "row %d repeats ID %q", i+1, id)
		}
		seen[id] = true
	}

	body, contentType, err := c.batchRequestBody(rows)
	if err != nil {
		return nil, providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "could not build the census batch request")
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.Base()+"/geographies/addressbatch", bytes.NewReader(body))
	if err != nil {
		return nil, providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "could not build the census batch request")
	}
	req.Header.Set("Content-Type", contentType)
	answer, err := c.do(ctx, req, maxBatchBody)
	if err != nil {
		return nil, err
	}
	byID, err := parseBatch(answer)
	if err != nil {
		return nil, err
	}
	out := make([]BatchResult, len(rows))
	for i, r := range rows {
		res, ok := byID[batchKey(r.ID)]
		if !ok {
			return nil, providers.Wrap(fmt.Errorf("census: batch answer has no row for ID %q", r.ID),
				providers.KindUpstream, providers.CodeUpstreamError, "the census geocoder sent an incomplete batch answer")
		}
		res.ID = r.ID // the caller's own spelling
		out[i] = res
	}
	return out, nil
}

// batchPrivate returns what the rows send that no error may carry to a
// log: the batch answer repeats every input address.
func batchPrivate(rows []BatchRow) []string {
	out := make([]string, 0, 4*len(rows))
	for _, r := range rows {
		out = append(out, r.Address.Line, r.Address.Street, r.Address.City, r.Address.Zip)
	}
	return out
}

// batchRequestBody returns the multipart form: the address file as CSV
// (Unique ID, Street, City, State, ZIP; no header row, which the upstream
// would geocode as an address), then benchmark and vintage.
func (c *Client) batchRequestBody(rows []BatchRow) ([]byte, string, error) {
	var file bytes.Buffer
	w := csv.NewWriter(&file)
	for _, r := range rows {
		a := r.Address
		rec := []string{r.ID, a.Street, a.City, a.State, a.Zip}
		for i := range rec {
			rec[i] = batchKey(rec[i]) // no line breaks inside a record
		}
		if err := w.Write(rec); err != nil {
			return nil, "", err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return nil, "", err
	}

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	fw, err := mw.CreateFormFile("addressFile", "addresses.csv")
	if err != nil {
		return nil, "", err
	}
	if _, err := fw.Write(file.Bytes()); err != nil {
		return nil, "", err
	}
	for _, f := range [][2]string{{"benchmark", c.Options.Benchmark}, {"vintage", c.Options.Vintage}} {
		if err := mw.WriteField(f[0], f[1]); err != nil {
			return nil, "", err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, "", err
	}
	return body.Bytes(), mw.FormDataContentType(), nil
}

// parseBatch reads a batch answer (CSV, no header, rows in any order) into
// results by ID. Columns: id, input address, match, match type, matched
// address, "lon,lat", TIGER line id, side, and for geographies state FIPS,
// county FIPS, tract, block. No_Match and Tie rows stop after the third.
func parseBatch(body []byte) (map[string]BatchResult, error) {
	if trimmed := bytes.TrimSpace(body); len(trimmed) > 0 && trimmed[0] == '{' {
		cause := errorsCause(trimmed)
		if cause == nil {
			cause = fmt.Errorf("JSON instead of CSV: %s", snippet(trimmed))
		}
		return nil, providers.Wrap(fmt.Errorf("census: batch: %w", cause),
			providers.KindUpstream, providers.CodeUpstreamError, "the census geocoder answered with an error")
	}
	unreadable := func(err error) error {
		return providers.Wrap(fmt.Errorf("census: batch answer: %w (body: %s)", err, snippet(body)),
			providers.KindUpstream, providers.CodeUpstreamError, "the census geocoder sent a batch answer that could not be read")
	}
	r := csv.NewReader(bytes.NewReader(body))
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	out := map[string]BatchResult{}
	for line := 1; ; line++ {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, unreadable(err)
		}
		res, err := batchRecord(rec)
		if err != nil {
			return nil, unreadable(fmt.Errorf("line %d: %w", line, err))
		}
		if _, dup := out[res.ID]; !dup {
			out[res.ID] = res
		}
	}
	return out, nil
}

// batchRecord decodes one row of a batch answer.
func batchRecord(rec []string) (BatchResult, error) {
	if len(rec) < 3 {
		return BatchResult{}, fmt.Errorf("%d fields, want at least 3", len(rec))
	}
	res := BatchResult{ID: batchKey(rec[0])}
	switch status := strings.TrimSpace(rec[2]); {
	case strings.EqualFold(status, batchNoMatch):
		return res, nil
	case strings.EqualFold(status, batchTie):
		res.Tie = true
		return res, nil
	case !strings.EqualFold(status, batchMatch):
		return BatchResult{}, fmt.Errorf("unknown match status %q", status)
	}
	if len(rec) < 6 {
		return BatchResult{}, fmt.Errorf("match row with %d fields, want at least 6", len(rec))
	}
	res.Matched = true
	res.MatchType = strings.TrimSpace(rec[3])
	res.Location = addressLocation(strings.TrimSpace(rec[4]))
	pt, err := parseLonLat(rec[5])
	if err != nil {
		return BatchResult{}, err
	}
	res.Location.Point = pt
	if len(rec) >= 11 {
		// The codes of the county and tract, as tiger.Locate reads them
		// (a batch answer names no county).
		place, _ := tiger.Locate(&tiger.County{StateFP: rec[8], CountyFP: rec[9]}, &tiger.Tract{TractCE: rec[10]})
		res.Location.FIPSCode, res.Location.CensusTract = place.FIPSCode, place.CensusTract
	}
	return res, nil
}

// batchKey is how an ID is sent in the address file and matched in the
// answer: blanks trimmed and collapsed, as the file is written.
func batchKey(id string) string { return strings.Join(strings.Fields(id), " ") }

// parseLonLat reads the "lon,lat" coordinates field of a batch row.
func parseLonLat(s string) (providers.Point, error) {
	lon, lat, ok := strings.Cut(s, ",")
	if !ok {
		return providers.Point{}, fmt.Errorf("coordinates of %d bytes are not \"lon,lat\"", len(s))
	}
	x, err1 := strconv.ParseFloat(strings.TrimSpace(lon), 64)
	y, err2 := strconv.ParseFloat(strings.TrimSpace(lat), 64)
	p := providers.Point{Lat: y, Lng: x}
	if err1 != nil || err2 != nil || !validPoint(p) {
		return providers.Point{}, fmt.Errorf("coordinates of %d bytes are not \"lon,lat\"", len(s))
	}
	return p, nil
}
