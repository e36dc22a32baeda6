package providers

import (
	"encoding"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
)

// decodeOptions sets the option fields of v, the value a Module.New
// returned, from opts, strictly: a name that is no option of v, or a value
// that its field's type cannot hold, is a KindInvalid error (code
// invalid_config) naming the option, so a typo in config.yaml fails
// start-up and check-config.
//
// The option fields of v are the exported fields of the struct it points
// to that carry a yaml tag (`yaml:"timeout_seconds"`), and those of the
// structs it embeds with `yaml:",inline"` (exported or not), as yaml.v3
// reads them; a field
// tagged `yaml:"-"` or not tagged is no option. A field of type string,
// bool, any int, uint or float kind, time.Duration ("10s"), or one whose
// pointer is an encoding.TextUnmarshaler, can be an option.
//
// config.yaml hands every option over as text (Settings.Options), so
// `year: 2022` and `year: "2022"` mean the same, as they did when modules
// read the text themselves. Values are trimmed; an empty value leaves the
// field as New set it, its default, as an unset option does: a
// ${VAR:-} that expands to nothing means "not given".
//
// The decoding is done here, with the standard library, rather than by
// yaml.v3 with KnownFields: the options reach the registry as text, after
// config.yaml was parsed, and yaml.v3 refuses a quoted "25" for an int,
// which configurations that work today write; and package providers stays
// free of third-party imports.
func decodeOptions(opts map[string]string, v any) error {
	if len(opts) == 0 {
		return nil
	}
	var known []string
	fields := map[string]reflect.Value{}
	if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.Elem().Kind() == reflect.Struct {
		optionFields(rv.Elem(), &known, fields)
	}
	names := make([]string, 0, len(opts))
	for name := range opts {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		f, ok := fields[name]
		if !ok {
			if len(known) == 0 {
				return Errorf(KindInvalid, CodeInvalidConfig, "unknown option %q (the module takes none)", name)
			}
			return Errorf(KindInvalid, CodeInvalidConfig, "unknown option %q%s (known: %s)",
				name, DidYouMean(name, known), strings.Join(known, ", "))
		}
		raw := strings.TrimSpace(opts[name])
		if raw == "" {
			continue
		}
		if err := setOption(f, raw); err != nil {
			return err.named(name, raw)
		}
	}
	return nil
}

// optionFields adds the option fields of the struct s to fields, and their
// names to known in the order the struct declares them.
func optionFields(s reflect.Value, known *[]string, fields map[string]reflect.Value) {
	t := s.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		tag, ok := sf.Tag.Lookup("yaml")
		if !ok || tag == "-" || !(sf.IsExported() || sf.Anonymous) {
			continue
		}
		name, flags, _ := strings.Cut(tag, ",")
		if flags == "inline" && sf.Type.Kind() == reflect.Struct {
			optionFields(s.Field(i), known, fields)
			continue
		}
		if name == "" {
			continue
		}
		*known = append(*known, name)
		fields[name] = s.Field(i)
	}
}

// badOption is why a value does not fit its option's field: what the field
// holds, or the field type's own error.
type badOption struct {
	want  string // "a whole number", ...; empty when err says it
	err   error
	buggy bool // the field's type cannot be an option: a bug of the module
}

func (b *badOption) named(name, raw string) *Error {
	switch {
	case b.buggy:
		return Errorf(KindInternal, CodeInternalError, "option %s has a type no option can have", name)
	case b.want != "":
		return Errorf(KindInvalid, CodeInvalidConfig, "option %s: %q is not %s", name, raw, b.want)
	}
	return Errorf(KindInvalid, CodeInvalidConfig, "option %s: %q: %v", name, raw, b.err)
}

var (
	durationType      = reflect.TypeFor[time.Duration]()
	textUnmarshalType = reflect.TypeFor[encoding.TextUnmarshaler]()
)

// setOption parses raw into the field f.
func setOption(f reflect.Value, raw string) *badOption {
	if f.Addr().Type().Implements(textUnmarshalType) {
		if err := f.Addr().Interface().(encoding.TextUnmarshaler).UnmarshalText([]byte(raw)); err != nil {
			return &badOption{err: err}
		}
		return nil
	}
	if f.Type() == durationType {
		d, err := time.ParseDuration(raw)
		if err != nil || d < 0 {
			return &badOption{want: `a duration such as "10s"`}
		}
		f.SetInt(int64(d))
		return nil
	}
	switch f.Kind() {
	case reflect.String:
		f.SetString(raw)
	case reflect.Bool:
		b, err := strconv.ParseBool(raw)
		if err != nil {
			return &badOption{want: "true or false"}
		}
		f.SetBool(b)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		n, err := strconv.ParseInt(raw, 10, f.Type().Bits())
		if err != nil {
			return &badOption{want: "a whole number"}
		}
		f.SetInt(n)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		n, err := strconv.ParseUint(raw, 10, f.Type().Bits())
		if err != nil {
			return &badOption{want: "a whole number, not negative"}
		}
		f.SetUint(n)
	case reflect.Float32, reflect.Float64:
		n, err := strconv.ParseFloat(raw, f.Type().Bits())
		if err != nil {
			return &badOption{want: "a number"}
		}
		f.SetFloat(n)
	default:
		return &badOption{buggy: true}
	}
	return nil
}
