package gateway

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gofiber/fiber/v2"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/service"
)

const localBatch = "propertyd.batch"

// batchKeys are the members an address object of a batch may hold.
var batchKeys = []string{"id", "q", "street", "unit", "city", "state", "zip"}

// batchAddress is one address object of a batch request as sent: in
// fields, or in one line (Q, nil when not given).
type batchAddress struct {
	ID                             *string
	Q                              *string
	Street, Unit, City, State, Zip string
}

// batchRequest is the body as decoded: each item kept raw so that one
// malformed address becomes an error entry instead of failing the batch.
type batchRequest struct {
	items []json.RawMessage
	err   error
}

var errNotJSON = &providers.Error{Kind: providers.KindUnsupportedMedia, Code: providers.CodeUnsupportedMediaType,
	Message: "the body must be sent as Content-Type: application/json"}

// decodeBatch reads the body once per request (the cost function and the
// handler both need it). The body must be application/json and one JSON
// object whose only member is "addresses" (a member named anything else, or
// named twice, is an error naming it, so a misspelled "adresses" is never an
// empty batch).
func decodeBatch(c *fiber.Ctx) *batchRequest {
	if r, ok := c.Locals(localBatch).(*batchRequest); ok {
		return r
	}
	r := &batchRequest{}
	c.Locals(localBatch, r)
	body := c.Body()
	if len(bytes.TrimSpace(body)) == 0 {
		r.err = invalidBody("", errors.New("the body is empty"))
		return r
	}
	if !isJSONMedia(c.Get(fiber.HeaderContentType)) {
		r.err = errNotJSON
		return r
	}
	members, err := jsonObject(body)
	if err != nil {
		r.err = invalidBody("", err)
		return r
	}
	var addresses *[]json.RawMessage
	for _, m := range members {
		if m.key != "addresses" {
			r.err = invalid(providers.ParamError{Parameter: printable(m.key), Message: "unknown member of the body (allowed: addresses)"})
			return r
		}
		if json.Unmarshal(m.value, &addresses) != nil {
			r.err = invalid(providers.ParamError{Parameter: "addresses", Message: "must be an array of address objects"})
			return r
		}
	}
	// A member named twice inside an address is as ambiguous as one named
	// twice in the body (which of the two is the street?): the whole
	// request is refused, naming the member's path, before anything is
	// charged or looked up.
	if addresses != nil {
		for i, raw := range *addresses {
			if _, err := jsonObject(raw); err != nil {
				if dup, ok := errors.AsType[duplicateMember](err); ok {
					r.err = invalidBody("addresses["+strconv.Itoa(i)+"]", dup)
					return r
				}
			}
		}
	}
	switch {
	case addresses == nil:
		r.err = invalid(providers.ParamError{Parameter: "addresses", Message: "is required"})
	case len(*addresses) == 0 || len(*addresses) > service.MaxBatch:
		r.err = &providers.Error{Kind: providers.KindUnprocessable, Code: providers.CodeInvalidBatchSize,
			Message: "a batch holds 1 to " + strconv.Itoa(service.MaxBatch) + " addresses, got " + strconv.Itoa(len(*addresses)),
			Params:  []providers.ParamError{{Parameter: "addresses", Message: "must hold 1 to " + strconv.Itoa(service.MaxBatch) + " items"}}}
	default:
		r.items = *addresses
	}
	return r
}

// isJSONMedia reports whether a Content-Type is application/json, with
// UTF-8 as its charset when it names one.
func isJSONMedia(ct string) bool {
	mt, params, err := mime.ParseMediaType(ct)
	if err != nil || mt != fiber.MIMEApplicationJSON {
		return false
	}
	cs, ok := params["charset"]
	return !ok || strings.EqualFold(cs, "utf-8")
}

// invalidBody is the 400 invalid_body of a body that is not the JSON its
// endpoint reads: malformed, not an object, text after it, or a member
// named twice, whose path (inside the object at path at, "" for the
// body itself) it names.
func invalidBody(at string, err error) *providers.Error {
	param, msg := "body", "must be one JSON object {\"addresses\": [...]}: "+err.Error()
	if dup, ok := errors.AsType[duplicateMember](err); ok {
		param, msg = printable(dup.key), "given more than once"
		if at != "" {
			param = at + "." + param
		}
	}
	return &providers.Error{Kind: providers.KindInvalid, Code: providers.CodeInvalidBody,
		Message: "invalid body: " + param + ": " + msg, Params: []providers.ParamError{{Parameter: param, Message: msg}}}
}

// duplicateMember is the error of a JSON object that names a member twice.
type duplicateMember struct{ key string }

func (d duplicateMember) Error() string {
	return "member " + strconv.Quote(printable(d.key)) + " given more than once"
}

// member is one name and raw value of a JSON object.
type member struct {
	key   string
	value json.RawMessage
}

// jsonObject reads raw as exactly one JSON object and returns its members
// in order. Unlike encoding/json it refuses a name given twice (which
// encoding/json would resolve silently, last one wins) and anything after
// the object (json.Decoder.More is false for a stray '}' or ']').
func jsonObject(raw []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not an object")
	}
	var out []member
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, errors.New("malformed")
		}
		key, _ := t.(string)
		for _, m := range out {
			if m.key == key {
				return nil, duplicateMember{key}
			}
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errors.New("malformed")
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, errors.New("malformed")
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("text after the object")
	}
	return out, nil
}

// readAddress decodes one batch item as strictly as lookup reads its query:
// an object of string members from batchKeys (id may be null; q is the
// whole address in one line, given instead of street and the other
// fields), each at most
// once, in valid UTF-8 (encoding/json would turn invalid bytes, and escapes
// of lone UTF-16 surrogates such as \ud800, into U+FFFD where lookup
// refuses them). An item that is not an object is invalid_address; a
// member that is unknown or not a valid string is invalid_parameter naming
// it, as a missing one is (the service's check, as lookup's). The address
// itself is then normalized by the service, as lookup's is. With an error,
// the address returned still holds the id when that member was itself a
// valid string, so that the item's error entry names it (client_id).
func readAddress(raw json.RawMessage) (batchAddress, *providers.Error) {
	var a batchAddress
	members, err := jsonObject(raw)
	if err != nil {
		return a, &providers.Error{Kind: providers.KindInvalid, Code: providers.CodeInvalidAddress,
			Message: "each address must be an object with string fields id, street, unit, city, state, zip (or id and q): " + err.Error()}
	}
	var errs []providers.ParamError
	for _, m := range members {
		var dst *string
		switch m.key {
		case "id":
			if string(m.value) == "null" {
				continue
			}
			dst = new(string)
		case "q":
			a.Q = new(string)
			dst = a.Q
		case "street":
			dst = &a.Street
		case "unit":
			dst = &a.Unit
		case "city":
			dst = &a.City
		case "state":
			dst = &a.State
		case "zip":
			dst = &a.Zip
		default:
			errs = append(errs, providers.ParamError{Parameter: printable(m.key),
				Message: "unknown member (allowed: " + strings.Join(batchKeys, ", ") + ")"})
			continue
		}
		switch {
		case len(m.value) == 0 || m.value[0] != '"':
			errs = append(errs, providers.ParamError{Parameter: m.key, Message: "must be a string"})
		case !utf8.Valid(m.value) || hasLoneSurrogate(m.value):
			errs = append(errs, providers.ParamError{Parameter: m.key, Message: "must be valid UTF-8"})
		case json.Unmarshal(m.value, dst) != nil:
			errs = append(errs, providers.ParamError{Parameter: m.key, Message: "must be a string"})
		case m.key == "id":
			a.ID = dst // only a valid id: it is echoed even when another member is refused
		}
	}
	if len(errs) > 0 {
		return a, invalid(errs...)
	}
	return a, nil
}

// hasLoneSurrogate reports whether the JSON string literal s escapes a
// UTF-16 surrogate that is not half of a pair (\ud800 alone, or \udc00
// first): text that no UTF-8 can hold, which encoding/json decodes to
// U+FFFD without a word.
func hasLoneSurrogate(s []byte) bool {
	high := false // the previous escape was a high surrogate awaiting its low half
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			if high {
				return true
			}
			continue
		}
		i++
		if s[i] != 'u' || i+4 >= len(s) {
			if high {
				return true
			}
			continue
		}
		v, err := strconv.ParseUint(string(s[i+1:i+5]), 16, 16)
		i += 4
		switch {
		case err != nil:
			return false // not JSON; the decoder refuses it
		case v >= 0xd800 && v < 0xdc00:
			if high {
				return true
			}
			high = true
		case v >= 0xdc00 && v < 0xe000:
			if !high {
				return true
			}
			high = false
		default:
			if high {
				return true
			}
		}
	}
	return high
}

// costOfBatch is (number of addresses) x (1 + sections). A body that cannot
// be read costs 1; the handler then rejects it.
func (g *Gateway) costOfBatch(c *fiber.Ctx) (int, error) {
	if _, err := g.includes(c); err != nil {
		return 0, err
	}
	r := decodeBatch(c)
	if r.err != nil {
		return 1, nil
	}
	return len(r.items) * (1 + stateOf(c).includeCost), nil
}

type batchError struct {
	Index      int                    `json:"index"`
	ClientID   *string                `json:"client_id"`
	Code       string                 `json:"code"`
	Message    string                 `json:"message"`
	Errors     []providers.ParamError `json:"errors,omitempty"`
	Candidates []providers.Candidate  `json:"candidates,omitempty"`
	Input      json.RawMessage        `json:"input,omitempty"`
}

// batch: POST /v1/properties/batch?match=&include= {"addresses":[{id?, street, unit?, city, state, zip} or {id?, q}...]}
// match= applies to every item as lookup's does to its address.
func (g *Gateway) batch(c *fiber.Ctx) error {
	q, err := queryParams(c, "include", "match")
	if err != nil {
		return err
	}
	mode, err := matchParam(q)
	if err != nil {
		return err
	}
	inc, _ := g.includes(c)
	r := decodeBatch(c)
	if r.err != nil {
		return r.err
	}
	g.cfg.Metrics.BatchSize(len(r.items))
	items := make([]service.BatchItem, len(r.items))
	clientIDs := make([]*string, len(r.items))
	var errs []batchError
	bad := make([]bool, len(r.items))
	// An item is charged only when it was answered: one refused as invalid
	// or failed by an upstream or the database is given back (see limit),
	// and so is a section that failed.
	st := stateOf(c)
	itemCost := 1 + st.includeCost
	for i, raw := range r.items {
		a, perr := readAddress(raw)
		if perr != nil {
			st.undelivered += itemCost
			bad[i] = true
			errs = append(errs, batchError{Index: i, ClientID: a.ID, Code: perr.Code, Message: perr.Message, Errors: perr.Params, Input: validInput(raw)})
			continue
		}
		clientIDs[i] = a.ID
		addr := providers.Address{Street: a.Street, Unit: a.Unit, City: a.City, State: a.State, Zip: a.Zip}
		if a.Q != nil {
			if err := address.OneForm(*a.Q, addr); err != nil {
				pe := providers.As(err)
				st.undelivered += itemCost
				bad[i] = true
				errs = append(errs, batchError{Index: i, ClientID: a.ID, Code: pe.Code, Message: pe.Message, Errors: pe.Params, Input: validInput(raw)})
				continue
			}
			addr.Line = *a.Q
		}
		items[i] = service.BatchItem{Address: addr, Mode: mode}
	}
	// Look up only the well-formed items, keeping their positions.
	var idx []int
	var good []service.BatchItem
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
		st.obs.AddUpstreamCalls(o.Calls)
		if o.Err != nil {
			pe := providers.As(o.Err)
			switch {
			case pe.Kind.Failure() || rejectedInput(pe):
				st.undelivered += itemCost
			case pe.Kind == providers.KindConflict:
				// Candidates or a refused match cost the item's lookup,
				// not its sections, as a lookup's 409 does.
				st.undelivered += st.includeCost
			}
			if pe.Kind == providers.KindInternal {
				pe = &providers.Error{Code: providers.CodeInternalError, Message: "an internal error occurred"}
			}
			errs = append(errs, batchError{Index: i, ClientID: clientIDs[i], Code: pe.Code, Message: pe.Message,
				Errors: pe.Params, Candidates: pe.Candidates, Input: r.items[i]})
			continue
		}
		st.obs.Served(providers.ReadRecord, o.Tier)
		found = append(found, o.Property)
		foundAt = append(foundAt, k)
	}
	secs := g.enrichAll(c.UserContext(), found, inc)
	results := make([]json.RawMessage, 0, len(found))
	for j, p := range found {
		st.servedSections(secs[j])
		st.undelivered += failedCost(inc, secs[j])
		o := outcomes[foundAt[j]]
		i := idx[foundAt[j]]
		src := p.Source
		if o.FromDatabase {
			src = "database"
		}
		extra := []field{{name: "index", value: i}, {name: "client_id", value: clientIDs[i]}, {name: "source", value: src},
			{name: "match", value: o.Match}}
		if len(inc) > 0 {
			extra = append(extra, sectionFields(inc, secs[j])...)
			extra = append(extra, field{name: "sections", value: sectionMetas(inc, secs[j])})
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

// validInput is a batch item as echoed in its error entry: an address
// object as sent, its strings' invalid UTF-8 bytes replaced by U+FFFD (in
// JSON text they can stand nowhere else, so it stays the same object, and
// the response valid JSON); nil, so no input member, for an item that is
// no object. input is always an object for a client's types to decode.
func validInput(raw json.RawMessage) json.RawMessage {
	if t := bytes.TrimSpace(raw); len(t) == 0 || t[0] != '{' {
		return nil
	}
	if utf8.Valid(raw) {
		return raw
	}
	return json.RawMessage(strings.ToValidUTF8(string(raw), "\uFFFD"))
}
