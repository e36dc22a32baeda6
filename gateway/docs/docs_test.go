package docs_test

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"

	"github.com/propertyd/propertyd/gateway/docs"
	"github.com/propertyd/propertyd/providers/service"
)

// TestSpecIsAValidOpenAPI31Document guards the document's own validity: a
// broken $ref or a schema error would make every client generator and the
// /docs page fail.
func TestSpecIsAValidOpenAPI31Document(t *testing.T) {
	var raw map[string]any
	if err := json.Unmarshal(docs.Spec(), &raw); err != nil {
		t.Fatalf("openapi.json is not JSON: %v", err)
	}
	if raw["openapi"] != "3.1.0" {
		t.Fatalf("openapi = %v, want 3.1.0", raw["openapi"])
	}
	doc, err := libopenapi.NewDocument(docs.Spec())
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		t.Fatalf("the document does not build (a $ref that resolves nowhere?): %v", err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatalf("validator: %v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, e := range verrs {
			t.Errorf("%s (line %d): %s", e.Message, e.SpecLine, e.Reason)
		}
	}

	want := []string{
		"/v1/properties/lookup", "/v1/properties/reverse", "/v1/properties/batch", "/v1/properties/search",
		"/v1/properties/{id}", "/healthz", "/readyz", "/metrics", "/openapi.json", "/docs",
		"/docs/assets/{asset}",
	}
	for _, name := range service.PublicSections() {
		want = append(want, "/v1/properties/{id}/"+name) // each section's own endpoint
	}
	var got []string
	for path := range model.Model.Paths.PathItems.KeysFromOldest() {
		got = append(got, path)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("paths = %v\nwant %v", got, want)
	}
	if _, ok := model.Model.Components.SecuritySchemes.Get("ApiKey"); !ok {
		t.Fatal("no ApiKey security scheme")
	}
}

// TestEveryResponseDeclaresItsHeaders: the validator checks a response's
// headers (and reports undeclared ones) only when the document declares a
// headers map for it, so every response must have one.
func TestEveryResponseDeclaresItsHeaders(t *testing.T) {
	var raw struct {
		Paths      map[string]map[string]struct{ Responses map[string]map[string]any }
		Components struct{ Responses map[string]map[string]any }
	}
	if err := json.Unmarshal(docs.Spec(), &raw); err != nil {
		t.Fatal(err)
	}
	check := func(where string, r map[string]any) {
		if _, ref := r["$ref"]; ref {
			return
		}
		if _, ok := r["headers"]; !ok {
			t.Errorf("%s declares no headers", where)
		}
	}
	for name, r := range raw.Components.Responses {
		check("components.responses."+name, r)
	}
	for path, ops := range raw.Paths {
		for method, op := range ops {
			for status, r := range op.Responses {
				check(method+" "+path+" "+status, r)
			}
		}
	}
}

// TestSpecListsEveryDocumentedErrorCode keeps the document and the README's
// error table in step: a code a client may switch on must be in both.
func TestSpecListsEveryDocumentedErrorCode(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	start := strings.Index(string(readme), "| status | code | when |")
	if start < 0 {
		t.Fatal("README.md has no error table")
	}
	table := string(readme[start:])
	table = table[:strings.Index(table, "\n\n")]
	var codes []string
	for _, row := range strings.Split(table, "\n")[2:] {
		cols := strings.Split(row, "|")
		if len(cols) < 4 {
			continue
		}
		for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(cols[2], -1) {
			codes = append(codes, m[1])
		}
	}
	if len(codes) < 15 {
		t.Fatalf("found only %d codes in the README's error table: %v", len(codes), codes)
	}
	spec := string(docs.Spec())
	for _, c := range codes {
		if !strings.Contains(spec, `"`+c+`"`) {
			t.Errorf("code %s is in the README's error table but not in openapi.json", c)
		}
	}
}

// TestPageLoadsNothingFromElsewhere: the page and its own script name no
// other host, and every asset the page loads is embedded.
func TestPageLoadsNothingFromElsewhere(t *testing.T) {
	page := string(docs.Page())
	if m := regexp.MustCompile(`(?i)(https?:)?//[a-z0-9.-]+\.[a-z]`).FindString(page); m != "" {
		t.Fatalf("the page names another host: %q", m)
	}
	own, err := fs.ReadFile(docs.Assets(), "propertyd-docs.js")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`https?://`).FindString(string(own)); m != "" {
		t.Fatalf("propertyd-docs.js names another host: %q", m)
	}
	if !strings.Contains(string(own), "validatorUrl: null") {
		t.Fatal("Swagger UI's validator badge would send the document to a public service")
	}
	css, err := fs.ReadFile(docs.Assets(), "swagger-ui.css")
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`@import|url\(["']?(https?:)?//`).FindString(string(css)); m != "" {
		t.Fatalf("the style sheet loads something from another host: %q", m)
	}
	refs := regexp.MustCompile(`(?:src|href)="(/[^"]*)"`).FindAllStringSubmatch(page, -1)
	if len(refs) < 3 {
		t.Fatalf("the page loads %d local resources, want the style sheet and two scripts", len(refs))
	}
	for _, r := range refs {
		if r[1] == "/openapi.json" { // the <noscript> link
			continue
		}
		name, ok := strings.CutPrefix(r[1], "/docs/assets/")
		if !ok {
			t.Errorf("the page loads %s, outside /docs/assets/", r[1])
			continue
		}
		if _, err := fs.Stat(docs.Assets(), name); err != nil {
			t.Errorf("the page loads %s, which is not embedded", r[1])
		}
	}
	if !strings.Contains(string(own), `url: "/openapi.json"`) {
		t.Fatal("the page does not load /openapi.json")
	}
	for _, directive := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'"} {
		if !strings.Contains(docs.ContentSecurityPolicy, directive) {
			t.Errorf("ContentSecurityPolicy lacks %q", directive)
		}
	}
}

// TestSpecDocumentsTheCatalogue holds the document to the core's catalogue
// of sections: include= names exactly the offered sections, in response
// order; every offered section, and nothing else, has an endpoint under
// /v1/properties/{id}/, with radius= exactly where the entry takes a
// radius and the cost the gateway charges for it. A section added to the
// catalogue fails here, naming what the document lacks, until the
// document says how to ask for it.
func TestSpecDocumentsTheCatalogue(t *testing.T) {
	var raw struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]struct {
				Enum []string `json:"enum"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(docs.Spec(), &raw); err != nil {
		t.Fatal(err)
	}
	if got, want := raw.Components.Schemas["SectionName"].Enum, service.PublicSections(); !slices.Equal(got, want) {
		t.Errorf("SectionName enum = %v, want the catalogue's offered sections %v", got, want)
	}
	const prefix = "/v1/properties/{id}/"
	for _, name := range service.PublicSections() {
		e, _ := service.SectionEntry(name)
		path := prefix + name
		type param struct {
			Name string `json:"name"`
		}
		var op struct {
			Description string  `json:"description"`
			Parameters  []param `json:"parameters"`
		}
		rawOp, ok := raw.Paths[path]["get"]
		if !ok {
			t.Errorf("section %s: the document has no GET %s, the section's own endpoint", name, path)
			continue
		}
		if err := json.Unmarshal(rawOp, &op); err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		radius := slices.Contains(op.Parameters, param{Name: "radius"})
		if radius != e.Radius {
			t.Errorf("section %s: GET %s documents radius= %v, the catalogue says the section takes a radius %v", name, path, radius, e.Radius)
		}
		if cost := fmt.Sprintf("Costs %d.", 1+e.Cost); !strings.Contains(op.Description, cost) {
			t.Errorf("section %s: GET %s does not say what it costs (%q) in its description", name, path, cost)
		}
	}
	for path := range raw.Paths {
		name, ok := strings.CutPrefix(path, prefix)
		if !ok {
			continue
		}
		if !slices.Contains(service.PublicSections(), name) {
			t.Errorf("the document has %s, but the catalogue offers no section %q: the endpoint does not exist", path, name)
		}
	}
}

// TestSpecDescribesEverySectionOfTheCatalogue follows each offered
// section through the fragments of the document that describe it, beside
// its endpoint: the endpoint's 200 answer and the response schema it
// refers to, whose data is the section's value schema; the section as a
// member of an enriched record and of a batch result; its entry in
// meta.sections. A section added to the catalogue fails here with one
// error per fragment the document still lacks, named by its JSON pointer,
// and a section the catalogue no longer has fails where the document
// still lists it.
func TestSpecDescribesEverySectionOfTheCatalogue(t *testing.T) {
	type object struct {
		Ref        string                     `json:"$ref"`
		Properties map[string]json.RawMessage `json:"properties"`
		Content    map[string]struct {
			Schema object `json:"schema"`
		} `json:"content"`
	}
	var raw struct {
		Paths map[string]map[string]struct {
			Responses map[string]object `json:"responses"`
		} `json:"paths"`
		Components struct {
			Responses map[string]object `json:"responses"`
			Schemas   map[string]object `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(docs.Spec(), &raw); err != nil {
		t.Fatal(err)
	}
	// ref resolves a local $ref of kind (responses or schemas), reporting
	// where it was found wanting.
	ref := func(where, r, kind string) (object, bool) {
		name, ok := strings.CutPrefix(r, "#/components/"+kind+"/")
		if !ok {
			t.Errorf("%s: want a $ref to #/components/%s/..., got %q", where, kind, r)
			return object{}, false
		}
		var o object
		if kind == "responses" {
			o, ok = raw.Components.Responses[name]
		} else {
			o, ok = raw.Components.Schemas[name]
		}
		if !ok {
			t.Errorf("%s: refers to #/components/%s/%s, which the document lacks", where, kind, name)
		}
		return o, ok
	}
	// members are the schemas that list the sections as members, and
	// whether a member that is no section is an error there.
	members := []struct {
		schema       string
		onlySections bool
	}{{"EnrichedProperty", true}, {"BatchResult", false}, {"SectionsMeta", true}}
	for _, name := range service.PublicSections() {
		path := "/v1/properties/{id}/" + name
		op, ok := raw.Paths[path]["get"]
		if !ok {
			continue // TestSpecDocumentsTheCatalogue names it
		}
		where := "section " + name + ": #/paths/" + strings.ReplaceAll(path, "/", "~1") + "/get/responses/200"
		r200, ok := op.Responses["200"]
		if !ok {
			t.Errorf("%s is missing", where)
			continue
		}
		resp, ok := ref(where, r200.Ref, "responses")
		if !ok {
			continue
		}
		where = "section " + name + ": " + r200.Ref + "/content/application~1json/schema"
		body, ok := ref(where, resp.Content["application/json"].Schema.Ref, "schemas")
		if !ok {
			continue
		}
		var data object
		if d, ok := body.Properties["data"]; !ok || json.Unmarshal(d, &data) != nil {
			t.Errorf("section %s: %s/properties/data, the section's value, is missing", name, resp.Content["application/json"].Schema.Ref)
		} else {
			ref("section "+name+": "+resp.Content["application/json"].Schema.Ref+"/properties/data", data.Ref, "schemas")
		}
	}
	for _, m := range members {
		props := raw.Components.Schemas[m.schema].Properties
		for _, name := range service.PublicSections() {
			if _, ok := props[name]; !ok {
				t.Errorf("section %s: #/components/schemas/%s/properties/%s is missing", name, m.schema, name)
			}
		}
		if !m.onlySections {
			continue
		}
		for name := range props {
			if !slices.Contains(service.PublicSections(), name) {
				t.Errorf("#/components/schemas/%s/properties/%s: the catalogue offers no section %q", m.schema, name, name)
			}
		}
	}
}

// TestTheCostTableIsOneTable keeps the README's table of what is charged
// and what is refunded and the document's (in info.description) the same,
// row for row: a client reads the rule in either place.
func TestTheCostTableIsOneTable(t *testing.T) {
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var spec struct{ Info struct{ Description string } }
	if err := json.Unmarshal(docs.Spec(), &spec); err != nil {
		t.Fatal(err)
	}
	table := func(where, text string) []string {
		i := strings.Index(text, "| outcome | charged |")
		if i < 0 {
			t.Fatalf("%s has no table of what is charged (| outcome | charged |)", where)
		}
		var rows []string
		for line := range strings.SplitSeq(text[i:], "\n") {
			if !strings.HasPrefix(line, "|") {
				break
			}
			rows = append(rows, line)
		}
		return rows
	}
	inReadme, inSpec := table("README.md", string(readme)), table("openapi.json's info.description", spec.Info.Description)
	if len(inReadme) < 8 {
		t.Fatalf("the README's cost table has %d rows", len(inReadme))
	}
	if !slices.Equal(inReadme, inSpec) {
		t.Fatalf("the cost tables differ:\nREADME.md:\n%s\nopenapi.json:\n%s", strings.Join(inReadme, "\n"), strings.Join(inSpec, "\n"))
	}
}

// TestEveryReadHasItsHead: the server answers HEAD wherever it answers GET
// (the same status and headers, no body), so the document declares it
// there too, with the same parameters and statuses and responses without
// content, which a generated client would otherwise try to decode from an
// empty body.
func TestEveryReadHasItsHead(t *testing.T) {
	var raw struct {
		Paths      map[string]map[string]json.RawMessage
		Components struct {
			Responses map[string]map[string]json.RawMessage
		}
	}
	if err := json.Unmarshal(docs.Spec(), &raw); err != nil {
		t.Fatal(err)
	}
	type op struct {
		Parameters []any // fmt prints their maps' keys sorted
		Responses  map[string]map[string]json.RawMessage
	}
	reads := 0
	for path, ops := range raw.Paths {
		if ops["get"] == nil {
			continue
		}
		reads++
		if ops["head"] == nil {
			t.Errorf("%s: GET without HEAD", path)
			continue
		}
		var get, head op
		if json.Unmarshal(ops["get"], &get) != nil || json.Unmarshal(ops["head"], &head) != nil {
			t.Fatalf("%s: operations not objects", path)
		}
		if fmt.Sprint(get.Parameters) != fmt.Sprint(head.Parameters) {
			t.Errorf("%s: HEAD's parameters differ from GET's", path)
		}
		for status := range get.Responses {
			if head.Responses[status] == nil {
				t.Errorf("%s: HEAD does not document %s, which GET does", path, status)
			}
		}
		for status, r := range head.Responses {
			if ref, ok := r["$ref"]; ok {
				var name string
				_ = json.Unmarshal(ref, &name)
				r = raw.Components.Responses[strings.TrimPrefix(name, "#/components/responses/")]
			}
			if r["content"] != nil && status != "405" { // HEAD is never a 405: the shared response stands
				t.Errorf("%s: HEAD's %s response has content; a HEAD answer has no body", path, status)
			}
		}
	}
	if reads < 10 {
		t.Fatalf("found %d read operations", reads)
	}
}
