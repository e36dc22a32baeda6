package gateway

import (
	"bytes"
	"encoding/json"
	"io"
	"slices"
	"strconv"

	"github.com/gofiber/fiber/v2"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/property"
)

const localBatch = "propertyd.batch"

// batchAddress is one address object of a batch request as sent.
type batchAddress struct {
	ID     *string `json:"id"`
	Street string  `json:"street"`
	City   string  `json:"city"`
	State  string  `json:"state"`
	Zip    string  `json:"zip"`
}

// batchRequest is the body as decoded: each item kept raw so that one
// malformed address becomes an error entry instead of failing the batch.
type batchRequest struct {
	items []json.RawMessage
	err   error
}

// decodeBatch reads the body once per request (the cost function and the
// handler both need it).
func decodeBatch(c *fiber.Ctx) *batchRequest {
	if r, ok := c.Locals(localBatch).(*batchRequest); ok {
		return r
	}
	r := &batchRequest{}
	var body struct {
		Addresses *[]json.RawMessage `json:"addresses"`
	}
	dec := json.NewDecoder(bytes.NewReader(c.Body()))
	dec.DisallowUnknownFields() // a misspelled "adresses" is an error, not an empty batch
	switch {
	case len(bytes.TrimSpace(c.Body())) == 0:
		r.err = invalid(providers.ParamError{Parameter: "body", Message: "a JSON object with an addresses array is required"})
	case dec.Decode(&body) != nil || !atEOF(dec):
		r.err = invalid(providers.ParamError{Parameter: "body", Message: "must be a JSON object {\"addresses\": [...]}"})
	case body.Addresses == nil:
		r.err = invalid(providers.ParamError{Parameter: "addresses", Message: "is required"})
	case len(*body.Addresses) == 0 || len(*body.Addresses) > property.MaxBatch:
		r.err = &providers.Error{Kind: providers.KindUnprocessable, Code: "invalid_batch_size",
			Message: "a batch holds 1 to " + strconv.Itoa(property.MaxBatch) + " addresses, got " + strconv.Itoa(len(*body.Addresses)),
			Params:  []providers.ParamError{{Parameter: "addresses", Message: "must hold 1 to " + strconv.Itoa(property.MaxBatch) + " items"}}}
	default:
		r.items = *body.Addresses
	}
	c.Locals(localBatch, r)
	return r
}

// atEOF reports whether nothing but white space follows the decoded value.
// dec.More is not enough: it reports false for a stray '}' or ']'.
func atEOF(dec *json.Decoder) bool {
	_, err := dec.Token()
	return err == io.EOF
}

// costOfBatch is (number of addresses) x (1 + sections). A body that cannot
// be read costs 1; the handler then rejects it.
func (g *Gateway) costOfBatch(c *fiber.Ctx) (int, error) {
	inc, err := g.includes(c)
	if err != nil {
		return 0, err
	}
	r := decodeBatch(c)
	if r.err != nil {
		return 1, nil
	}
	return len(r.items) * (1 + len(inc)), nil
}

type batchError struct {
	Index    int                    `json:"index"`
	ClientID *string                `json:"client_id"`
	Code     string                 `json:"code"`
	Message  string                 `json:"message"`
	Errors   []providers.ParamError `json:"errors,omitempty"`
	Input    json.RawMessage        `json:"input"`
}

// batch: POST /v1/properties/batch {"addresses":[{id?, street, city, state, zip}...]}
func (g *Gateway) batch(c *fiber.Ctx) error {
	if _, err := queryParams(c, "include"); err != nil {
		return err
	}
	inc, _ := g.includes(c)
	r := decodeBatch(c)
	if r.err != nil {
		return r.err
	}
	g.cfg.Metrics.BatchSize(len(r.items))
	items := make([]property.BatchItem, len(r.items))
	clientIDs := make([]*string, len(r.items))
	var errs []batchError
	bad := make([]bool, len(r.items))
	for i, raw := range r.items {
		var a batchAddress
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&a); err != nil {
			bad[i] = true
			errs = append(errs, batchError{Index: i, Code: "invalid_address",
				Message: "each address must be an object with string fields id, street, city, state, zip", Input: raw})
			continue
		}
		clientIDs[i] = a.ID
		items[i] = property.BatchItem{Address: providers.Address{Street: a.Street, City: a.City, State: a.State, Zip: a.Zip}}
	}
	// Look up only the well-formed items, keeping their positions.
	var idx []int
	var good []property.BatchItem
	for i := range items {
		if !bad[i] {
			idx = append(idx, i)
			good = append(good, items[i])
		}
	}
	outcomes := g.cfg.Service.Batch(c.UserContext(), good)
	var found []*providers.Property
	var foundAt []int
	for k, o := range outcomes {
		i := idx[k]
		if o.Err != nil {
			pe := providers.As(o.Err)
			if pe.Kind == providers.KindInternal {
				pe = &providers.Error{Code: "internal_error", Message: "an internal error occurred"}
			}
			errs = append(errs, batchError{Index: i, ClientID: clientIDs[i], Code: pe.Code, Message: pe.Message,
				Errors: pe.Params, Input: r.items[i]})
			continue
		}
		found = append(found, o.Property)
		foundAt = append(foundAt, k)
	}
	secs := g.enrichAll(c.UserContext(), found, inc)
	results := make([]json.RawMessage, 0, len(found))
	for j, p := range found {
		o := outcomes[foundAt[j]]
		i := idx[foundAt[j]]
		src := p.Source
		if o.FromDatabase {
			src = "database"
		}
		extra := []field{{"index", i}, {"client_id", clientIDs[i]}, {"source", src}}
		if len(inc) > 0 {
			extra = append(extra, sectionFields(inc, secs[j])...)
			extra = append(extra, field{"sections", sectionMetas(inc, secs[j])})
		}
		b, err := recordWith(p, extra...)
		if err != nil {
			return err
		}
		results = append(results, b)
	}
	slices.SortFunc(errs, func(a, b batchError) int { return a.Index - b.Index })
	if errs == nil {
		errs = []batchError{}
	}
	data, err := json.Marshal(struct {
		Results        []json.RawMessage `json:"results"`
		Errors         []batchError      `json:"errors"`
		TotalRequested int               `json:"total_requested"`
		TotalFound     int               `json:"total_found"`
		TotalErrors    int               `json:"total_errors"`
	}{results, errs, len(r.items), len(results), len(errs)})
	if err != nil {
		return err
	}
	body, err := envelope(data, nil)
	if err != nil {
		return err
	}
	return sendJSON(c, body)
}
