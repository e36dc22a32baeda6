package main

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/propertyd/propertyd/providers"
)

// checkFields reads the parsed file against the shape of Config before it
// is decoded, so that a mistake is told in the file's own words: the
// field's path as written (providers.flood.modul), its line, and the field
// it is most likely a misspelling of. yaml.v3's strict decoding would say
// "field modul not found in type main.ProviderConfig" instead, naming a Go
// type the reader never sees. Every mistake of the file is returned, in
// the order of the file; nil when its fields and kinds fit Config. A
// module's options (providers.<role>.options) are the module's to check:
// it decodes them strictly when it is built, with the same words.
func checkFields(doc *yaml.Node) error {
	if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
		doc = doc.Content[0]
	}
	if doc.Kind == 0 || doc.Kind == yaml.DocumentNode {
		return nil // an empty file: every field takes its default
	}
	var errs []error
	walkFields(doc, reflect.TypeFor[Config](), "", &errs)
	return errors.Join(errs...)
}

var unmarshalerType = reflect.TypeFor[yaml.Unmarshaler]()

// walkFields checks n against t, the Go type it will be decoded into, at
// path ("" for the top of the file), adding what is wrong to errs.
func walkFields(n *yaml.Node, t reflect.Type, path string, errs *[]error) {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if n.Tag == "!!null" {
		return // nothing given: the default
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		// A type that reads itself (Duration) says what is wrong; the
		// path says where.
		if err := n.Decode(reflect.New(t).Interface()); err != nil {
			*errs = append(*errs, fmt.Errorf("%s: %w", path, err))
		}
		return
	}
	bad := func(format string, args ...any) {
		*errs = append(*errs, fmt.Errorf("%s: %s (line %d)", path, fmt.Sprintf(format, args...), n.Line))
	}
	switch t.Kind() {
	case reflect.Struct:
		if n.Kind != yaml.MappingNode {
			bad("must be a mapping of fields, not %s", shownValue(n))
			return
		}
		fields, names := yamlFields(t)
		for i := 0; i+1 < len(n.Content); i += 2 {
			key, value := n.Content[i], n.Content[i+1]
			if key.Value == "<<" {
				continue // a merge key: yaml.v3 merges the mapping it names
			}
			f, ok := fields[key.Value]
			if !ok {
				*errs = append(*errs, fmt.Errorf("unknown field %q (line %d)%s",
					join(path, key.Value), key.Line, didYouMean(path, key.Value, names)))
				continue
			}
			walkFields(value, f.Type, join(path, key.Value), errs)
		}
	case reflect.Map:
		if n.Kind != yaml.MappingNode {
			bad("must be a mapping, not %s", shownValue(n))
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			walkFields(n.Content[i+1], t.Elem(), join(path, n.Content[i].Value), errs)
		}
	case reflect.Slice:
		if n.Kind != yaml.SequenceNode {
			bad("must be a list, not %s", shownValue(n))
			return
		}
		for i, item := range n.Content {
			walkFields(item, t.Elem(), fmt.Sprintf("%s[%d]", path, i), errs)
		}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!int" {
			bad("%s is not a whole number", shownValue(n))
		}
	case reflect.Float32, reflect.Float64:
		if n.Kind != yaml.ScalarNode || (n.ShortTag() != "!!int" && n.ShortTag() != "!!float") {
			bad("%s is not a number", shownValue(n))
		}
	case reflect.Bool:
		if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
			bad("%s is not true or false", shownValue(n))
		}
	case reflect.String:
		if n.Kind != yaml.ScalarNode {
			bad("must be text, not %s", shownValue(n))
		}
	}
}

// yamlFields returns the fields of struct t by the name the file gives
// them (the yaml tag, else the lowercased Go name, as yaml.v3 reads them),
// and those names in declaration order.
func yamlFields(t reflect.Type) (map[string]reflect.StructField, []string) {
	fields := map[string]reflect.StructField{}
	var names []string
	for i := range t.NumField() {
		f := t.Field(i)
		name, opts, _ := strings.Cut(f.Tag.Get("yaml"), ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if opts == "inline" && f.Type.Kind() == reflect.Struct {
			inner, innerNames := yamlFields(f.Type)
			for _, n := range innerNames {
				fields[n] = inner[n]
			}
			names = append(names, innerNames...)
			continue
		}
		if name == "" {
			name = strings.ToLower(f.Name)
		}
		fields[name] = f
		names = append(names, name)
	}
	return fields, names
}

// didYouMean suggests the field of the same mapping the unknown key is
// most likely a misspelling of, written as the unknown one is (its path).
func didYouMean(path, key string, names []string) string {
	if c, ok := providers.Closest(key, names); ok {
		return fmt.Sprintf("; did you mean %q?", join(path, c))
	}
	return ""
}

// join appends a field's name to the path of the mapping holding it.
func join(path, name string) string {
	if path == "" {
		return name
	}
	return path + "." + name
}

// shownValue describes what a node holds, for a message about its kind.
func shownValue(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	}
	return fmt.Sprintf("%q", n.Value)
}

// withLines adds to each of err's mistakes that names a field ("keys[0].burst:
// must be ...", as Validate and the module builder word them) and has no
// line yet the line of that field in doc, or of the nearest mapping holding
// it where the file leaves it out. err is nil or an errors.Join.
func withLines(doc *yaml.Node, err error) error {
	if err == nil {
		return nil
	}
	errs := []error{err}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		errs = j.Unwrap()
	}
	out := make([]error, 0, len(errs))
	for _, e := range errs {
		msg := e.Error()
		path, _, found := strings.Cut(msg, ": ")
		if line := lineOf(doc, path); found && line > 0 && !strings.Contains(msg, "(line ") {
			e = lineError{e, line}
		}
		out = append(out, e)
	}
	return errors.Join(out...)
}

// lineError is a mistake with the line of the field it names.
type lineError struct {
	err  error
	line int
}

func (e lineError) Error() string { return fmt.Sprintf("%s (line %d)", e.err, e.line) }
func (e lineError) Unwrap() error { return e.err }

// lineOf returns the line of the field at path (providers.geocoder.module,
// keys[1].burst) in doc, or of the deepest mapping or list on the way to it
// that the file has; 0 when the file has nothing of it.
func lineOf(doc *yaml.Node, path string) int {
	n := doc
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode || path == "" {
		return 0
	}
	line := 0
	for _, part := range strings.Split(path, ".") {
		name, index, _ := strings.Cut(part, "[")
		var next *yaml.Node
		if n.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == name {
					line, next = n.Content[i].Line, n.Content[i+1]
					break
				}
			}
		}
		if next == nil {
			return line
		}
		n = next
		if index != "" {
			i, err := strconv.Atoi(strings.TrimSuffix(index, "]"))
			if err != nil || n.Kind != yaml.SequenceNode || i < 0 || i >= len(n.Content) {
				return line
			}
			n = n.Content[i]
			line = n.Line
		}
	}
	return line
}
