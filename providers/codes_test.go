package providers_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// code is one constant of codes.go.
type code struct {
	name, value string
	public      bool // false: its doc says it never reaches an HTTP client
}

// codeConstants reads the constants of codes.go, so that the test covers
// every code without a second list to keep in step.
func codeConstants(t *testing.T) []code {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "codes.go", nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var out []code
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			for i, name := range vs.Names {
				lit, ok := vs.Values[i].(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					t.Fatalf("constant %s is not a string literal", name.Name)
				}
				v, _ := strconv.Unquote(lit.Value)
				doc := strings.Join(strings.Fields(vs.Doc.Text()), " ")
				if !strings.HasPrefix(doc, name.Name+" ") {
					t.Errorf("constant %s has no doc comment starting with its name saying when it is used", name.Name)
				}
				out = append(out, code{name: name.Name, value: v,
					public: !strings.Contains(doc, "never reaches an HTTP client")})
			}
		}
	}
	if len(out) < 30 {
		t.Fatalf("found only %d code constants in codes.go", len(out))
	}
	return out
}

// readmeErrors returns README's "Errors" section and the codes of its error
// table (the table gateway/docs holds to the OpenAPI document).
func readmeErrors(t *testing.T) (section string, table []string) {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	start := strings.Index(readme, "\n## Errors\n")
	if start < 0 {
		t.Fatal(`README.md has no "## Errors" section`)
	}
	section = readme[start+1:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	i := strings.Index(section, "| status | code | when |")
	if i < 0 {
		t.Fatal("README.md's Errors section has no error table")
	}
	rows := section[i:]
	rows = rows[:strings.Index(rows, "\n\n")]
	for _, row := range strings.Split(rows, "\n")[2:] {
		cols := strings.Split(row, "|")
		if len(cols) < 4 {
			continue
		}
		for _, m := range regexp.MustCompile("`([a-z_]+)`").FindAllStringSubmatch(cols[2], -1) {
			table = append(table, m[1])
		}
	}
	return section, table
}

// specCodes returns the OpenAPI document and the codes its schemas list for
// a problem's code, a batch error's code and a section's error.
func specCodes(t *testing.T) (spec string, codes []string) {
	t.Helper()
	b, err := os.ReadFile("../gateway/docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if props, ok := v["properties"].(map[string]any); ok {
				for _, name := range []string{"code", "error"} {
					schema, _ := props[name].(map[string]any)
					for _, key := range []string{"const", "enum", "examples"} {
						switch vals := schema[key].(type) {
						case string:
							codes = append(codes, vals)
						case []any:
							for _, c := range vals {
								if s, ok := c.(string); ok {
									codes = append(codes, s)
								}
							}
						}
					}
				}
			}
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	if len(codes) < 15 {
		t.Fatalf("found only %d codes in the OpenAPI document's schemas: %v", len(codes), codes)
	}
	return string(b), codes
}

// TestEveryCodeIsDocumented keeps the code constants, README's Errors
// section and the OpenAPI document in step: a code a client may see is
// documented where clients read, a code documented there is one the service
// can send, and a code that never reaches a client is not promised to them.
func TestEveryCodeIsDocumented(t *testing.T) {
	consts := codeConstants(t)
	section, table := readmeErrors(t)
	spec, listed := specCodes(t)

	byValue := map[string]code{}
	for _, c := range consts {
		if !regexp.MustCompile(`^[a-z]+(_[a-z]+)*$`).MatchString(c.value) {
			t.Errorf("%s = %q is not a snake_case code", c.name, c.value)
		}
		if other, dup := byValue[c.value]; dup {
			t.Errorf("%s and %s are both %q", other.name, c.name, c.value)
		}
		byValue[c.value] = c

		inReadme := strings.Contains(section, "`"+c.value+"`")
		inSpec := strings.Contains(spec, `"`+c.value+`"`) || strings.Contains(spec, "`"+c.value+"`")
		switch {
		case c.public && !inReadme && !inSpec:
			t.Errorf("%s (%q) reaches clients but neither README's Errors section nor openapi.json mentions it", c.name, c.value)
		case !c.public && (inReadme || inSpec):
			t.Errorf("%s (%q) is documented for clients but its doc says it never reaches an HTTP client", c.name, c.value)
		}
	}
	for _, v := range table {
		if c, ok := byValue[v]; !ok || !c.public {
			t.Errorf("README's error table lists %q, which is no public code constant in codes.go", v)
		}
	}
	slices.Sort(listed)
	for _, v := range slices.Compact(listed) {
		if c, ok := byValue[v]; !ok || !c.public {
			t.Errorf("openapi.json lists the code %q, which is no public code constant in codes.go", v)
		}
	}
}
