package docs_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/gateway/docs"
)

// TestSpecIsShapedForGeneratedClients holds the document to the forms a Go
// client generator (oapi-codegen) turns into clean types, so a generated
// client compiles, decodes every response strictly and keeps full
// precision. cmd/propertyd's TestResponsesMatchTheOpenAPIDocument generates
// such a client and decodes real responses with it; this test names the
// rule a change broke, in a second, without a generator:
//
//   - a number without format double becomes float32 (a coordinate loses
//     its sixth decimal);
//   - a const or enum without a type becomes interface{};
//   - null inside an enum becomes a "<nil>" constant of a type of its own:
//     a nullable enum is anyOf [$ref, {type: null}];
//   - an object schema written inline becomes an anonymous struct: objects
//     live in components/schemas and are used by $ref;
//   - every operation documents 405 (the shared MethodNotAllowed response),
//     since every path answers 405 to the methods it does not serve.
func TestSpecIsShapedForGeneratedClients(t *testing.T) {
	var doc map[string]any
	if err := json.Unmarshal(docs.Spec(), &doc); err != nil {
		t.Fatal(err)
	}
	var problems []string
	bad := func(where, format string, args ...any) {
		problems = append(problems, where+": "+fmt.Sprintf(format, args...))
	}

	var visit func(where string, s any, root bool)
	visit = func(where string, s any, root bool) {
		m, ok := s.(map[string]any)
		if !ok {
			return
		}
		if _, ref := m["$ref"]; ref {
			return
		}
		types := typesOf(m["type"])
		if slices.Contains(types, "number") && m["format"] != "double" {
			bad(where, "a number without format double (a generated client reads it as float32)")
		}
		_, hasConst := m["const"]
		enum, hasEnum := m["enum"].([]any)
		if (hasConst || hasEnum) && len(types) == 0 {
			bad(where, "a const or enum without a type (a generated client reads it as interface{})")
		}
		if slices.Contains(enum, nil) {
			bad(where, "null inside an enum (a generated client gets a \"<nil>\" constant); use anyOf [$ref, {type: null}]")
		}
		_, hasProps := m["properties"]
		if !root && (hasProps || slices.Contains(types, "object") && m["required"] != nil) {
			bad(where, "an object schema written inline (a generated client gets an anonymous struct); name it in components/schemas")
		}
		for _, k := range sortedKeys(m["properties"]) {
			visit(where+".properties."+k, m["properties"].(map[string]any)[k], false)
		}
		for _, k := range []string{"items", "additionalProperties", "not"} {
			visit(where+"."+k, m[k], false)
		}
		for _, k := range []string{"allOf", "anyOf", "oneOf", "prefixItems"} {
			list, _ := m[k].([]any)
			for i, sub := range list {
				visit(fmt.Sprintf("%s.%s[%d]", where, k, i), sub, false)
			}
		}
	}
	// Where schemas hang off parameters, headers and response or request
	// content.
	content := func(where string, v any) {
		c, _ := v.(map[string]any)
		for _, mt := range sortedKeys(c["content"]) {
			visit(where+".content."+mt+".schema", c["content"].(map[string]any)[mt].(map[string]any)["schema"], false)
		}
		visit(where+".schema", c["schema"], false)
		for _, h := range sortedKeys(c["headers"]) {
			visit(where+".headers."+h+".schema", c["headers"].(map[string]any)[h].(map[string]any)["schema"], false)
		}
	}

	components := doc["components"].(map[string]any)
	schemas := components["schemas"].(map[string]any)
	for _, name := range sortedKeys(schemas) {
		visit("components.schemas."+name, schemas[name], true)
	}
	for _, kind := range []string{"responses", "parameters", "headers"} {
		for _, name := range sortedKeys(components[kind]) {
			content("components."+kind+"."+name, components[kind].(map[string]any)[name])
		}
	}
	paths := doc["paths"].(map[string]any)
	for _, path := range sortedKeys(paths) {
		ops := paths[path].(map[string]any)
		for _, method := range sortedKeys(ops) {
			op := ops[method].(map[string]any)
			where := strings.ToUpper(method) + " " + path
			params, _ := op["parameters"].([]any)
			for i, p := range params {
				content(fmt.Sprintf("%s parameters[%d]", where, i), p)
			}
			content(where+" requestBody", op["requestBody"])
			responses := op["responses"].(map[string]any)
			for _, status := range sortedKeys(responses) {
				content(where+" responses."+status, responses[status])
			}
			if r, _ := responses["405"].(map[string]any); r["$ref"] != "#/components/responses/MethodNotAllowed" {
				bad(where, "does not document 405 with the shared MethodNotAllowed response (the server answers 405 to every method a path does not serve)")
			}
		}
	}
	for _, p := range problems {
		t.Error(p)
	}
	if len(schemas) < 40 {
		t.Fatalf("walked only %d component schemas: is the document's layout what this test expects?", len(schemas))
	}
}

// typesOf returns a schema's type as a list ("string", or ["string", "null"]).
func typesOf(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		var out []string
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// sortedKeys returns the keys of a JSON object, or none for anything else.
func sortedKeys(v any) []string {
	m, _ := v.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
