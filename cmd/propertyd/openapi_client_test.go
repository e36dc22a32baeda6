package main

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"text/template"

	// The generated client's runtime: imported here only so that go.mod
	// keeps requiring it (go mod tidy would drop a module nothing imports)
	// and `go mod download` fetches it, so the client builds offline.
	_ "github.com/oapi-codegen/runtime"
	"github.com/pb33f/libopenapi-validator/paths"
)

// oaExchange is one response of a conformance run, as a client receives it.
type oaExchange struct {
	Name        string `json:"name"`
	Operation   string `json:"operation,omitempty"` // operationId; "" for a request no operation describes
	Schema      string `json:"schema,omitempty"`    // then: the component schema of its body
	Status      int    `json:"status"`
	ContentType string `json:"content_type"`
	Body        []byte `json:"body"`
}

// record keeps an exchange for checkGeneratedClient.
func (c *oaConformance) record(call oaAPICall, req *http.Request, resp *http.Response, body []byte) {
	x := oaExchange{Name: call.name, Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Body: body}
	if call.request == oaRequestOutside {
		x.Schema = call.schema
	} else if item, _, _ := paths.FindPath(req, c.doc, c.opts); item != nil {
		if op := item.GetOperations().GetOrZero(strings.ToLower(call.method)); op != nil {
			x.Operation = op.OperationId
		}
	}
	c.exchanges = append(c.exchanges, x)
}

// checkGeneratedClient generates a Go client from the document with
// oapi-codegen (the go.mod tool), builds and vets it, holds its types to
// what a client needs (no float32, no interface{} but for "the item as
// sent", no anonymous structs, no "<nil>" constants, one type per enum),
// and then decodes every response of the run with it: through the
// generated Parse<Operation>Response, then strictly (unknown members are
// errors) into the type it chose, which must write the same JSON back
// (float64 coordinates keep every digit). When base is not empty the
// client also calls the running service: a reverse lookup at a point given
// to 14 decimals, a lookup with sections and a batch.
func (c *oaConformance) checkGeneratedClient(base string) {
	c.t.Helper()
	c.t.Run("a generated Go client decodes every response", func(t *testing.T) {
		if testing.Short() {
			t.Skip("generates and builds a client (about 20 s the first time); not in -short")
		}
		dir := oaGenerateClient(t)
		oaCheckGeneratedTypes(t, filepath.Join(dir, "client", "client.gen.go"))
		exchanges, err := json.Marshal(c.exchanges)
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(dir, "exchanges.json")
		if err := os.WriteFile(file, exchanges, 0o644); err != nil {
			t.Fatal(err)
		}
		oaWriteHarness(t, dir, c.exchanges)
		oaGo(t, dir, "vet", "./...")
		oaGo(t, dir, "build", "-o", "decode", "./harness")
		args := []string{"-exchanges", file}
		if base != "" {
			args = append(args, "-base", base, "-key", demoKey,
				"-lat", strconv.FormatFloat(oaPreciseLat+0.001, 'g', -1, 64), "-lng", strconv.FormatFloat(oaPreciseLng, 'g', -1, 64))
		}
		cmd := exec.Command(filepath.Join(dir, "decode"), args...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("the generated client, on the responses of this run: %v\n%s", err, out)
		}
		t.Logf("%s", out)
	})
}

// oaGoBinary is the go command of the toolchain running the tests.
func oaGoBinary(t *testing.T) string {
	t.Helper()
	if p, err := exec.LookPath("go"); err == nil {
		return p
	}
	p := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("no go command to generate and build the client with: %v", err)
	}
	return p
}

// oaGo runs the go command in dir, offline from the module cache when it
// holds what go.mod names (CI runs `go mod download` first).
func oaGo(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(oaGoBinary(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly -buildvcs=false")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go %s in %s: %v\n%s", strings.Join(args, " "), dir, err, out)
	}
	return out
}

// oaGenerateClient makes a module in a temporary directory with propertyd's
// requirements (so it builds from the same module cache) and the client
// oapi-codegen generates from gateway/docs/openapi.json in its package
// client, and returns the directory.
func oaGenerateClient(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	gomod = regexp.MustCompile(`(?m)^module .*$`).ReplaceAll(gomod, []byte("module propertydclient"))
	gosum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	config := "package: client\ngenerate:\n  models: true\n  client: true\noutput: " +
		filepath.Join(dir, "client", "client.gen.go") + "\n"
	for name, data := range map[string][]byte{"go.mod": gomod, "go.sum": gosum, "oapi-codegen.yaml": []byte(config)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "client"), 0o755); err != nil {
		t.Fatal(err)
	}
	oaGo(t, root, "tool", "oapi-codegen", "-config", filepath.Join(dir, "oapi-codegen.yaml"),
		filepath.Join(root, "gateway", "docs", "openapi.json"))
	return dir
}

// oaCheckGeneratedTypes reads the generated types and reports what makes a
// client lossy or awkward.
func oaCheckGeneratedTypes(t *testing.T, file string) {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	// The members of "the item as sent" of a batch error, a batch item that
	// is no address object (answered in errors, not refused with the
	// batch), and the paths and components of the document itself, are any
	// JSON by design.
	anyAllowed := map[string]bool{"BatchError.Input": true, "BatchItem1": true, "OpenAPIDocument.Paths": true, "OpenAPIDocument.Components": true}
	enums := map[string][]string{} // type: its constants' values
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, spec := range gd.Specs {
			switch s := spec.(type) {
			case *ast.TypeSpec:
				oaCheckTypeExpr(t, fset, s.Name.Name, s.Type, true, anyAllowed)
			case *ast.ValueSpec:
				if gd.Tok != token.CONST || s.Type == nil || len(s.Values) != 1 {
					continue
				}
				typ, _ := s.Type.(*ast.Ident)
				lit, _ := s.Values[0].(*ast.BasicLit)
				if typ == nil || lit == nil {
					continue
				}
				if lit.Value == `"<nil>"` {
					t.Errorf("%s: constant %s = \"<nil>\": a null inside an enum", fset.Position(s.Pos()), s.Names[0].Name)
				}
				enums[typ.Name] = append(enums[typ.Name], lit.Value)
			}
		}
	}
	seen := map[string]string{}
	for _, typ := range slices.Sorted(maps.Keys(enums)) {
		values := enums[typ]
		sort.Strings(values)
		key := strings.Join(values, ",")
		if other, dup := seen[key]; dup && len(values) > 1 {
			t.Errorf("types %s and %s hold the same enum (%s): one enum, written twice in the document", other, typ, key)
		}
		seen[key] = typ
	}
	if len(enums) < 5 {
		t.Errorf("found only %d enum types in the generated client: did the generator's output change shape?", len(enums))
	}
}

// oaCheckTypeExpr reports float32, interface{} and anonymous structs in the
// type named where. top is true for the type's own definition.
func oaCheckTypeExpr(t *testing.T, fset *token.FileSet, where string, e ast.Expr, top bool, anyAllowed map[string]bool) {
	t.Helper()
	switch x := e.(type) {
	case *ast.Ident:
		if x.Name == "float32" {
			t.Errorf("%s: %s is float32 (a number without format double): coordinates would lose digits", fset.Position(x.Pos()), where)
		}
		if x.Name == "any" && !anyAllowed[where] {
			t.Errorf("%s: %s is any (a const or enum without a type?)", fset.Position(x.Pos()), where)
		}
	case *ast.InterfaceType:
		if len(x.Methods.List) == 0 && !anyAllowed[where] {
			t.Errorf("%s: %s is interface{} (a const or enum without a type?)", fset.Position(x.Pos()), where)
		}
	case *ast.StructType:
		if !top {
			t.Errorf("%s: %s is an anonymous struct (an object written inline in the document)", fset.Position(x.Pos()), where)
		}
		for _, field := range x.Fields.List {
			name := where
			if len(field.Names) > 0 {
				name = where + "." + field.Names[0].Name
			}
			oaCheckTypeExpr(t, fset, name, field.Type, false, anyAllowed)
		}
	case *ast.StarExpr:
		oaCheckTypeExpr(t, fset, where, x.X, false, anyAllowed)
	case *ast.ArrayType:
		oaCheckTypeExpr(t, fset, where, x.Elt, false, anyAllowed)
	case *ast.MapType:
		oaCheckTypeExpr(t, fset, where, x.Value, false, anyAllowed)
	}
}

// oaWriteHarness writes the program that decodes the exchanges with the
// generated client: one Parse function per operation of the document and
// one type per schema named by a request outside it.
func oaWriteHarness(t *testing.T, dir string, exchanges []oaExchange) {
	t.Helper()
	var ops, schemas []string
	for _, x := range exchanges {
		if x.Operation != "" && !slices.Contains(ops, x.Operation) {
			ops = append(ops, x.Operation)
		}
		if x.Schema != "" && !slices.Contains(schemas, x.Schema) {
			schemas = append(schemas, x.Schema)
		}
	}
	sort.Strings(ops)
	sort.Strings(schemas)
	goName := func(id string) string { return strings.ToUpper(id[:1]) + id[1:] }
	var src bytes.Buffer
	err := template.Must(template.New("harness").Delims("<<", ">>").Funcs(template.FuncMap{"goName": goName}).Parse(oaHarness)).
		Execute(&src, map[string]any{"Operations": ops, "Schemas": schemas})
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "harness"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "harness", "main.go"), src.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// oaHarness is the decoding program, a template (delimited by << and >>)
// over the operations and schemas to decode with.
const oaHarness = `// Command harness decodes recorded propertyd responses with the client
// generated from its OpenAPI document, and calls the service with it.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"reflect"
	"strings"

	"propertydclient/client"
)

type exchange struct {
	Name        string ` + "`json:\"name\"`" + `
	Operation   string ` + "`json:\"operation\"`" + `
	Schema      string ` + "`json:\"schema\"`" + `
	Status      int    ` + "`json:\"status\"`" + `
	ContentType string ` + "`json:\"content_type\"`" + `
	Body        []byte ` + "`json:\"body\"`" + `
}

var parsers = map[string]func(*http.Response) (any, error){
<<- range .Operations>>
	"<<.>>": func(r *http.Response) (any, error) { return client.Parse<<goName .>>Response(r) },
<<- end>>
}

var schemas = map[string]func() any{
<<- range .Schemas>>
	"<<.>>": func() any { return new(client.<<.>>) },
<<- end>>
}

var failed bool

func fail(format string, args ...any) {
	failed = true
	fmt.Printf("FAIL "+format+"\n", args...)
}

func main() {
	file := flag.String("exchanges", "", "the recorded responses (JSON)")
	base := flag.String("base", "", "the running service, to call with the client")
	key := flag.String("key", "", "its API key")
	lat := flag.Float64("lat", 0, "a point to reverse-geocode")
	lng := flag.Float64("lng", 0, "")
	flag.Parse()
	data, err := os.ReadFile(*file)
	if err != nil {
		panic(err)
	}
	var xs []exchange
	if err := json.Unmarshal(data, &xs); err != nil {
		panic(err)
	}
	decoded := 0
	for _, x := range xs {
		if decode(x) {
			decoded++
		}
	}
	fmt.Printf("decoded %d of %d responses strictly into the generated types\n", decoded, len(xs))
	if decoded == 0 {
		fail("no response was decoded")
	}
	if *base != "" {
		call(*base, *key, *lat, *lng)
	}
	if failed {
		os.Exit(1)
	}
}

// decode checks one exchange; it reports whether a body was decoded.
func decode(x exchange) bool {
	isJSON := strings.Contains(x.ContentType, "json") && len(x.Body) > 0
	var target any
	switch {
	case x.Operation != "":
		parse, ok := parsers[x.Operation]
		if !ok {
			fail("%s: no parser for operation %s", x.Name, x.Operation)
			return false
		}
		rsp := &http.Response{StatusCode: x.Status, Header: http.Header{"Content-Type": {x.ContentType}},
			Body: io.NopCloser(bytes.NewReader(x.Body))}
		parsed, err := parse(rsp)
		if err != nil {
			fail("%s: the generated client could not read the %d response: %v", x.Name, x.Status, err)
			return false
		}
		v := reflect.ValueOf(parsed).Elem()
		for i := 0; i < v.NumField(); i++ {
			f := v.Type().Field(i)
			if (strings.HasPrefix(f.Name, "JSON") || strings.HasPrefix(f.Name, "ApplicationproblemJSON")) && !v.Field(i).IsNil() {
				target = reflect.New(f.Type.Elem()).Interface()
			}
		}
		if target == nil {
			if isJSON {
				fail("%s: the generated client has no type for a %d %s response", x.Name, x.Status, x.ContentType)
			}
			return false
		}
	case x.Schema != "":
		target = schemas[x.Schema]()
	default:
		fail("%s: neither an operation nor a schema", x.Name)
		return false
	}
	dec := json.NewDecoder(bytes.NewReader(x.Body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(target); err != nil {
		fail("%s: decoding the %d response strictly into %T: %v", x.Name, x.Status, target, err)
		return false
	}
	back, err := json.Marshal(target)
	if err != nil {
		fail("%s: encoding %T again: %v", x.Name, target, err)
		return false
	}
	if diff := compare("$", value(x.Body), value(back)); diff != "" {
		fail("%s: %T does not hold the response as sent: %s", x.Name, target, diff)
	}
	return true
}

// value decodes JSON with numbers as written.
func value(b []byte) any {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		panic(err)
	}
	return v
}

// compare says where b differs from a, a member that is null in one and
// absent from the other being the same to a client.
func compare(path string, a, b any) string {
	switch av := a.(type) {
	case map[string]any:
		bv, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %v became %v", path, a, b)
		}
		for k := range merged(av, bv) {
			x, inA := av[k]
			y, inB := bv[k]
			if (!inA || x == nil) && (!inB || y == nil) {
				continue
			}
			if d := compare(path+"."+k, x, y); d != "" {
				return d
			}
		}
		return ""
	case []any:
		bv, ok := b.([]any)
		if !ok || len(av) != len(bv) {
			return fmt.Sprintf("%s: %v became %v", path, a, b)
		}
		for i := range av {
			if d := compare(fmt.Sprintf("%s[%d]", path, i), av[i], bv[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %v became %v", path, a, b)
	}
	return ""
}

func merged(a, b map[string]any) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// call uses the client as an application would.
func call(base, key string, lat, lng float64) {
	ctx := context.Background()
	c, err := client.NewClientWithResponses(base, client.WithRequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("X-API-Key", key)
		return nil
	}))
	if err != nil {
		panic(err)
	}
	include := client.Include{client.SectionName("flood"), client.SectionName("demographics")}

	rev, err := c.ReverseLookupPropertyWithResponse(ctx, &client.ReverseLookupPropertyParams{Lat: lat, Lng: lng, Include: &include})
	switch {
	case err != nil:
		fail("reverse lookup: %v", err)
	case rev.JSON200 == nil:
		fail("reverse lookup: %d %s", rev.StatusCode(), rev.Body)
	case rev.JSON200.Data.Latitude != lat || rev.JSON200.Data.Longitude != lng:
		fail("reverse lookup at %v,%v: the record reads %v,%v", lat, lng, rev.JSON200.Data.Latitude, rev.JSON200.Data.Longitude)
	case rev.JSON200.Data.Demographics == nil || rev.JSON200.Meta.Sections == nil || rev.JSON200.Meta.Sections.Flood == nil:
		fail("reverse lookup: the sections asked for are not there: %s", rev.Body)
	default:
		fmt.Printf("reverse lookup at %v,%v: record %d at %v,%v, flood section %s\n", lat, lng, rev.JSON200.Data.Id,
			rev.JSON200.Data.Latitude, rev.JSON200.Data.Longitude, rev.JSON200.Meta.Sections.Flood.Status)
	}

	look, err := c.LookupPropertyWithResponse(ctx, &client.LookupPropertyParams{Street: ptr("2200 W Broad St"), City: ptr("Richmond"), State: ptr("VA"), Include: &include})
	switch {
	case err != nil:
		fail("lookup: %v", err)
	case look.JSON200 == nil:
		fail("lookup: %d %s", look.StatusCode(), look.Body)
	case look.JSON200.Data.Flood == nil || look.JSON200.Data.Flood.PanelNumber == nil || look.JSON200.Data.Demographics == nil:
		fail("lookup: sections missing: %s", look.Body)
	default:
		f := look.JSON200.Data.Flood
		fmt.Printf("lookup: record %d, flood zone %s (%s), panel %s\n", look.JSON200.Data.Id, deref(f.ZoneCode), f.Description, deref(f.PanelNumber))
	}

	// The same address in one line: the record just found, and how.
	line, err := c.LookupPropertyWithResponse(ctx, &client.LookupPropertyParams{Q: ptr("2200 W Broad St, Richmond, VA")})
	switch {
	case err != nil:
		fail("lookup in one line: %v", err)
	case line.JSON200 == nil:
		fail("lookup in one line: %d %s", line.StatusCode(), line.Body)
	case line.JSON200.Meta.Match == nil || string(line.JSON200.Meta.Match.Type) != "database":
		fail("lookup in one line: want the record from the database: %s", line.Body)
	default:
		fmt.Printf("lookup in one line: record %d, match %s\n", line.JSON200.Data.Id, line.JSON200.Meta.Match.Type)
	}

	// An item is any JSON value, answered item by item; an address object
	// is the typed one.
	items := make([]client.BatchItem, 3)
	_ = items[0].FromBatchAddress(client.BatchAddress{Street: ptr("2200 W Broad St"), State: ptr("VA")})
	_ = items[1].FromBatchAddress(client.BatchAddress{Street: ptr("PO Box 12"), State: ptr("VA")})
	_ = items[2].FromBatchItem1("not an address")
	batch, err := c.BatchLookupPropertiesWithResponse(ctx, nil, client.BatchLookupPropertiesJSONRequestBody{Addresses: items})
	switch {
	case err != nil:
		fail("batch: %v", err)
	case batch.JSON200 == nil:
		fail("batch: %d %s", batch.StatusCode(), batch.Body)
	case batch.JSON200.Data.TotalFound != 1 || len(batch.JSON200.Data.Errors) != 2:
		fail("batch: want one result and two errors: %s", batch.Body)
	}

	missing, err := c.GetPropertyWithResponse(ctx, 999999999, nil)
	switch {
	case err != nil:
		fail("get: %v", err)
	case missing.ApplicationproblemJSON404 == nil || missing.ApplicationproblemJSON404.Code != "property_not_found":
		fail("get of an unknown id: %d %s", missing.StatusCode(), missing.Body)
	}
}

func ptr[T any](v T) *T { return &v }

func deref(s *string) string {
	if s == nil {
		return "<none>"
	}
	return *s
}
`
