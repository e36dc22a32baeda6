package gateway

import (
	"context"
	"encoding/json"
	"strconv"
	"sync"

	"github.com/gofiber/fiber/v2"
	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/address"
	"github.com/propertyd/propertyd/providers/service"
)

// respondRecord renders one property with the sections its request
// includes (st.includes, parsed when the request was charged). A lookup's
// answer (lookup set) is kept ready when it may be (keepLookup), and a
// plain GET by id's always.
func (g *Gateway) respondRecord(c *fiber.Ctx, st *requestState, p *providers.Property, src service.Source, created, lookup bool) error {
	inc := st.includes
	secs := g.cfg.Service.Enrich(c.UserContext(), p, inc, service.Options{Radius: service.DefaultRadius})
	st.served(src)
	st.servedSections(secs)
	st.undelivered += failedCost(inc, secs)
	meta := recordMeta{Source: src.Geocoder, Sections: sectionMetas(inc, secs)}
	if created {
		meta.Created = &src.Created
	}
	// This call's match (lookup, reverse), else the one the record keeps
	// from its first (a GET by id): stored as the JSON Match.Text wrote,
	// it is sent as it is, never decoded and encoded again.
	if src.Match.Type != "" {
		meta.Match = json.RawMessage(src.Match.Text())
	} else if p.Match != "" && json.Valid([]byte(p.Match)) {
		meta.Match = json.RawMessage(p.Match)
	}
	render := func(b []byte) ([]byte, error) {
		b, err := appendRecordWith(b, p, sectionFields(inc, secs)...)
		if err != nil {
			return nil, err
		}
		return appendMeta(b, meta)
	}
	if g.ready.c == nil || !isRead(c.Context()) {
		return renderPooled(c, render)
	}
	if !created && len(inc) == 0 {
		// A plain GET by id: its answer is kept ready for the next one.
		return renderPooledWith(c, render, func(c *fiber.Ctx, b []byte) error {
			rb := g.ready.put(p.ID, b, st.start)
			sendReadyTo(c, rb)
			return nil
		})
	}
	if expires, vintages, ok := keepLookup(src, inc, secs); ok && lookup {
		return renderPooledWith(c, render, func(c *fiber.Ctx, b []byte) error {
			rb := g.ready.putAnswer(lookupKey(c.Request().URI().QueryString()), b, st.start, expires, vintages)
			sendReadyTo(c, rb)
			return nil
		})
	}
	return renderPooled(c, render)
}

// failedCost is the cost of the sections of secs (named by inc) that
// failed, which a request does not pay for (see limit).
func failedCost(inc []string, secs []service.SectionResult) int {
	n := 0
	for i, r := range secs {
		if r.Failed {
			n += service.CostOf(inc[i : i+1])
		}
	}
	return n
}

// lookup: GET /v1/properties/lookup?street=&unit=&city=&state=&zip=&match=&include=
// or GET /v1/properties/lookup?q=&match=&include= with the whole address in
// one line (address.NormalizeLine): one record whichever form finds it.
// The unit may be given on the street or apart from it, as an import's
// unit column is: both name the same record (address.Normalize). match=
// is best or strict (service.MatchMode); without it an address the
// geocoder matched to several different addresses is a 409
// ambiguous_address listing them.
func (g *Gateway) lookup(c *fiber.Ctx) error {
	// A query string kept ready passed every check below when its answer
	// was made, and would again: its ready answer is looked for first.
	st := stateOf(c)
	if g.lookupReady(c, st) {
		return nil
	}
	q, err := queryParams(c, "q", "street", "unit", "city", "state", "zip", "match", "include")
	if err != nil {
		return err
	}
	mode, err := matchParam(q)
	if err != nil {
		return err
	}
	a := providers.Address{Street: q["street"], Unit: q["unit"], City: q["city"], State: q["state"], Zip: q["zip"]}
	if line, ok := q["q"]; ok {
		if line == "" {
			// Given, but empty: the service could not tell it from q not
			// given, and would read the fields.
			return address.OneForm(line, a)
		}
		a.Line = line // the service checks the line's form (address.NormalizeAny)
	}
	p, src, err := g.cfg.Service.LookupMatching(c.UserContext(), a, mode)
	if err != nil {
		st.obs.AddUpstreamCalls(src.Calls)
		if providers.KindOf(err) == providers.KindConflict {
			// Candidates or a refused match cost one lookup: the
			// sections asked for were not delivered.
			st.undelivered += st.includeCost
		}
		return err
	}
	return g.respondRecord(c, st, p, src, true, true)
}

// matchParam reads match= (best or strict; absent is the default).
func matchParam(q map[string]string) (service.MatchMode, error) {
	v, given := q["match"]
	mode, ok := service.ParseMatchMode(v)
	if !ok || (given && mode == service.MatchAuto) {
		return "", invalid(providers.ParamError{Parameter: "match", Message: "must be best or strict"})
	}
	return mode, nil
}

// reverse: GET /v1/properties/reverse?lat=&lng=&include=
func (g *Gateway) reverse(c *fiber.Ctx) error {
	q, err := queryParams(c, "lat", "lng", "include")
	if err != nil {
		return err
	}
	var errs []providers.ParamError
	lat, perr := parseFloat(q, "lat", -90, 90)
	if perr != nil {
		errs = append(errs, *perr)
	}
	lng, perr := parseFloat(q, "lng", -180, 180)
	if perr != nil {
		errs = append(errs, *perr)
	}
	if len(errs) > 0 {
		return invalid(errs...)
	}
	st := stateOf(c)
	p, src, err := g.cfg.Service.Reverse(c.UserContext(), providers.Point{Lat: lat, Lng: lng})
	if err != nil {
		st.obs.AddUpstreamCalls(src.Calls)
		return err
	}
	return g.respondRecord(c, st, p, src, true, false)
}

// parseID reads the path's record id: a positive integer in decimal digits
// without a sign or a leading zero, so that one record has one URL.
func parseID(c *fiber.Ctx) (int64, error) {
	id, ok := recordID(c.Params("id"))
	if !ok {
		return 0, invalid(providers.ParamError{Parameter: "id", Message: "must be a positive integer without sign or leading zeros, at most 9223372036854775807"})
	}
	return id, nil
}

// recordID is the id raw names, if it is a record's id as the API writes
// it: a positive integer without sign or leading zeros that fits int64.
func recordID(raw string) (int64, bool) {
	if !plainInteger(raw) {
		return 0, false
	}
	id, err := strconv.ParseInt(raw, 10, 64)
	return id, err == nil && id >= 1
}

// get: GET /v1/properties/{id}?include=
func (g *Gateway) get(c *fiber.Ctx) error {
	id, err := parseID(c)
	if err != nil {
		return err
	}
	if _, err := queryParams(c, "include"); err != nil {
		return err
	}
	if ok, err := g.getReady(c, id); ok {
		return err
	}
	p, src, err := g.cfg.Service.Get(c.UserContext(), id)
	if err != nil {
		return err
	}
	return g.respondRecord(c, stateOf(c), p, src, false, false)
}

// section answers GET /v1/properties/{id}/{section}[?radius=] for the
// catalogue entry e: radius= only where the entry takes a radius. A
// section the deployment does not configure is a 503
// section_not_configured, as in include= it is an unknown name.
func (g *Gateway) section(e service.Entry) fiber.Handler {
	name := e.Section
	var allowed []string
	if e.Radius {
		allowed = append(allowed, "radius")
	}
	return func(c *fiber.Ctx) error {
		id, err := parseID(c)
		if err != nil {
			return err
		}
		q, err := queryParams(c, allowed...)
		if err != nil {
			return err
		}
		radius, perr := parseInt(q, "radius", service.DefaultRadius, service.MinRadius, service.MaxRadius)
		if perr != nil {
			return invalid(*perr)
		}
		if !g.allowed[name] {
			return providers.Errorf(providers.KindUnavailable, providers.CodeSectionNotConfigured, "the %s section is not configured", name)
		}
		p, src, err := g.cfg.Service.Get(c.UserContext(), id)
		if err != nil {
			return err
		}
		st := stateOf(c)
		st.served(src)
		r, err := g.cfg.Service.SectionOf(c.UserContext(), p, name, service.Options{Radius: radius})
		st.servedSections([]service.SectionResult{r})
		if err != nil {
			return err
		}
		// A part of it failed (status partial): the section is not paid
		// for, as in include=; the record's unit is.
		st.undelivered += failedCost([]string{name}, []service.SectionResult{r})
		body, err := envelope(r.Data, fiber.Map{"section": r.Meta})
		if err != nil {
			return err
		}
		return sendJSON(c, body)
	}
}

// searchMeta is the paging meta of a search response. Total is the number
// of matches when TotalExact, else providers.MaxSearchTotal (there are
// more); TotalPages follows Total.
type searchMeta struct {
	Page       int  `json:"page"`
	PerPage    int  `json:"per_page"`
	Total      int  `json:"total"`
	TotalExact bool `json:"total_exact"`
	TotalPages int  `json:"total_pages"`
}

// newSearchMeta returns the meta of a search of f whose store counted
// total matches (up to providers.MaxSearchTotal+1).
func newSearchMeta(f providers.SearchFilter, total int) searchMeta {
	exact := total <= providers.MaxSearchTotal
	total = min(total, providers.MaxSearchTotal)
	return searchMeta{Page: f.Page, PerPage: f.PerPage, Total: total, TotalExact: exact,
		TotalPages: (total + f.PerPage - 1) / f.PerPage}
}

// searchParams are the parameters search accepts.
var searchParams = []string{"zip", "city", "state", "county", "fips_code", "census_tract", "property_type",
	"min_bedrooms", "max_bedrooms", "min_bathrooms", "min_year_built", "max_year_built",
	"min_living_area_sqft", "max_living_area_sqft", "lat", "lng", "radius_m", "bbox", "page", "per_page"}

// search: GET /v1/properties/search?zip=&city=&state=&county=&fips_code=&census_tract=&property_type=
// &min_bedrooms=&max_bedrooms=&min_bathrooms=&min_year_built=&max_year_built=&min_living_area_sqft=
// &max_living_area_sqft=&lat=&lng=&radius_m=&bbox=&page=&per_page=
// (parseSearch says what each means). Near a point, each record carries
// distance_m.
func (g *Gateway) search(c *fiber.Ctx) error {
	q, err := queryParams(c, searchParams...)
	if err != nil {
		return err
	}
	f, errs := parseSearch(q)
	if len(errs) > 0 {
		return invalid(errs...)
	}
	props, total, err := g.cfg.Service.Search(c.UserContext(), f)
	if err != nil {
		return err
	}
	return renderPooled(c, func(b []byte) ([]byte, error) {
		b = append(b, '[')
		for i := range props {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendRecord(b, &props[i])
			if f.Near != nil {
				// The store ordered by this same rounded distance.
				b = append(b[:len(b)-1], `,"distance_m":`...)
				b = strconv.AppendFloat(b, f.Near.Distance(props[i].Point()), 'f', -1, 64)
				b = append(b, '}')
			}
		}
		b = append(b, ']')
		return appendMeta(b, newSearchMeta(f, total))
	})
}

func (g *Gateway) readyz(c *fiber.Ctx) error {
	if g.cfg.Ready == nil {
		return c.JSON(fiber.Map{"status": "ready"})
	}
	ok, open := g.cfg.Ready(c.UserContext())
	if open == nil {
		open = []string{}
	}
	body := fiber.Map{"status": "ready", "open_breakers": open}
	if !ok {
		c.Status(fiber.StatusServiceUnavailable)
		body["status"] = "unavailable"
	}
	if g.cfg.Redis != nil {
		// Redis down does not make the instance unready: it still serves,
		// with per-instance limits.
		body["redis"] = "down"
		if g.cfg.Redis() {
			body["redis"] = "up"
		}
	}
	return c.JSON(body)
}

// enrichAll enriches several records concurrently.
func (g *Gateway) enrichAll(ctx context.Context, ps []*providers.Property, inc []string) [][]service.SectionResult {
	out := make([][]service.SectionResult, len(ps))
	if len(inc) == 0 {
		return out
	}
	var wg sync.WaitGroup
	for i, p := range ps {
		wg.Add(1)
		go func() {
			defer wg.Done()
			out[i] = g.cfg.Service.Enrich(ctx, p, inc, service.Options{Radius: service.DefaultRadius})
		}()
	}
	wg.Wait()
	return out
}
