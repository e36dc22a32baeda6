package geofile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
)

// dbfField is a field descriptor of a .dbf.
type dbfField struct {
	name     string
	typ      byte
	off, len int
	decimals int
}

// dbfReader streams the records of a dBase file, the attributes of a
// shapefile: the dBase III format (a 32-byte header, 32-byte field
// descriptors ended by 0x0D, then fixed-length records each led by a
// deletion flag), as ESRI's shapefile description refers to it.
type dbfReader struct {
	r       *bufio.Reader
	fields  []dbfField
	count   int // records, as the header says
	read    int
	buf     []byte
	charset *encoding.Decoder // nil: UTF-8
}

// openDBF reads the header of a .dbf. cpg is the .cpg beside it ("" when
// there is none), which names the code page of its text.
func openDBF(in io.Reader, cpg string) (*dbfReader, error) {
	br := bufio.NewReaderSize(in, 64<<10)
	head := make([]byte, 32)
	if _, err := io.ReadFull(br, head); err != nil {
		return nil, fmt.Errorf("%w: .dbf header: %v", ErrMalformed, err)
	}
	d := &dbfReader{r: br, count: int(binary.LittleEndian.Uint32(head[4:]))}
	headerLen := int(binary.LittleEndian.Uint16(head[8:]))
	recLen := int(binary.LittleEndian.Uint16(head[10:]))
	if headerLen < 33 || recLen < 1 {
		return nil, fmt.Errorf("%w: .dbf header of %d bytes, records of %d", ErrMalformed, headerLen, recLen)
	}
	cs, err := codePage(cpg, head[29])
	if err != nil {
		return nil, err
	}
	if cs != nil {
		d.charset = cs.NewDecoder()
	}
	desc := make([]byte, headerLen-32)
	if _, err := io.ReadFull(br, desc); err != nil {
		return nil, fmt.Errorf("%w: .dbf field descriptors: %v", ErrMalformed, err)
	}
	off := 1 // the deletion flag
	for i := 0; i+32 <= len(desc) && desc[i] != 0x0D; i += 32 {
		fd := desc[i : i+32]
		name := fd[:11]
		if j := bytes.IndexByte(name, 0); j >= 0 {
			name = name[:j]
		}
		f := dbfField{name: d.text(bytes.TrimSpace(name)), typ: fd[11], off: off, len: int(fd[16]), decimals: int(fd[17])}
		if f.typ == 'C' {
			f.len += int(fd[17]) << 8 // long character fields (Clipper, FoxPro) keep the high byte there
			f.decimals = 0
		}
		off += f.len
		d.fields = append(d.fields, f)
	}
	if off != recLen {
		return nil, fmt.Errorf("%w: .dbf fields take %d bytes a record, the header says %d", ErrMalformed, off, recLen)
	}
	d.buf = make([]byte, recLen)
	return d, nil
}

// columns returns the fields' names.
func (d *dbfReader) columns() []string {
	out := make([]string, len(d.fields))
	for i, f := range d.fields {
		out[i] = f.name
	}
	return out
}

// next reads the next record: its values by field name, whether the record
// is marked deleted, and a field that could not be read (the rest are
// read). It returns io.EOF after the last record the header counts.
func (d *dbfReader) next() (props map[string]any, deleted bool, bad error, err error) {
	if d.read >= d.count {
		return nil, false, nil, io.EOF
	}
	if _, err := io.ReadFull(d.r, d.buf); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, false, nil, fmt.Errorf("%w: the .dbf ends at record %d of the %d its header counts", ErrTruncated, d.read+1, d.count)
		}
		return nil, false, nil, err
	}
	d.read++
	props = make(map[string]any, len(d.fields))
	var bads []error
	for _, f := range d.fields {
		v, err := d.value(f, d.buf[f.off:f.off+f.len])
		if err != nil {
			bads = append(bads, fmt.Errorf("%s: %w", f.name, err))
		}
		props[f.name] = v
	}
	return props, d.buf[0] == '*', errors.Join(bads...), nil
}

// value reads a field's value by its type: C (character) a string, N
// (numeric) an int64 when it has no decimals and fits, else a float64, F
// (float) a float64, D (date, YYYYMMDD) a time.Time at midnight UTC, L
// (logical) a bool; any other type its text. A blank value, a numeric one
// of asterisks (dBase's overflow) and a logical "?" are nil: dBase has no
// null and writes these for one, and cannot tell an empty string from a
// missing one.
func (d *dbfReader) value(f dbfField, raw []byte) (any, error) {
	switch f.typ {
	case 'N', 'F':
		s := strings.TrimSpace(string(bytes.Trim(raw, "\x00")))
		if s == "" || strings.Trim(s, "*") == "" {
			return nil, nil
		}
		if f.typ == 'N' && f.decimals == 0 {
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return n, nil
			}
		}
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a number", s)
		}
		return v, nil
	case 'D':
		s := strings.TrimSpace(string(bytes.Trim(raw, "\x00")))
		if s == "" || strings.Trim(s, "0") == "" {
			return nil, nil
		}
		t, err := time.Parse("20060102", s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a date (YYYYMMDD)", s)
		}
		return t, nil
	case 'L':
		switch c := bytes.TrimSpace(raw); {
		case len(c) == 0 || c[0] == '?':
			return nil, nil
		case bytes.IndexByte([]byte("TtYy"), c[0]) >= 0:
			return true, nil
		case bytes.IndexByte([]byte("FfNn"), c[0]) >= 0:
			return false, nil
		default:
			return nil, fmt.Errorf("%q is not a logical value", c)
		}
	}
	s := bytes.TrimRight(raw, " \x00")
	if len(s) == 0 {
		return nil, nil
	}
	return d.text(s), nil
}

// text decodes bytes of the file's code page.
func (d *dbfReader) text(b []byte) string {
	if d.charset == nil {
		if utf8.Valid(b) {
			return string(b)
		}
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	s, err := d.charset.Bytes(b)
	if err != nil {
		return strings.ToValidUTF8(string(b), "\uFFFD")
	}
	return string(s)
}

// codePage returns the encoding of a .dbf's text (nil for UTF-8): the one
// its .cpg names (ESRI's convention: "UTF-8", "1252", "ISO-8859-1"...),
// else the one its language driver byte names, else ISO-8859-1 (the
// default GDAL takes; ASCII reads the same in all). A .cpg naming a code
// page not known here is refused rather than read into wrong letters.
func codePage(cpg string, ldid byte) (encoding.Encoding, error) {
	if key := strings.TrimSpace(cpg); key != "" {
		key = strings.ToUpper(key)
		key = strings.NewReplacer("-", "", "_", "", " ", "").Replace(key)
		key = strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(key, "WINDOWS"), "ANSI"), "CP")
		if key == "UTF8" || key == "65001" {
			return nil, nil
		}
		if e, ok := codePages[key]; ok {
			return e, nil
		}
		return nil, fmt.Errorf("%w: the .cpg names code page %q, which the reader does not know", ErrMalformed, strings.TrimSpace(cpg))
	}
	switch ldid {
	case 0x01:
		return charmap.CodePage437, nil
	case 0x02:
		return charmap.CodePage850, nil
	case 0x03, 0x57:
		return charmap.Windows1252, nil
	case 0x64:
		return charmap.CodePage852, nil
	case 0x65:
		return charmap.CodePage866, nil
	case 0xC8:
		return charmap.Windows1250, nil
	case 0xC9:
		return charmap.Windows1251, nil
	}
	return charmap.ISO8859_1, nil
}

// codePages are the code pages a .cpg may name, by their number (after
// "windows-", "ANSI", "CP" and dashes are taken off) or ISO name.
var codePages = map[string]encoding.Encoding{
	"1250":      charmap.Windows1250,
	"1251":      charmap.Windows1251,
	"1252":      charmap.Windows1252,
	"1253":      charmap.Windows1253,
	"1254":      charmap.Windows1254,
	"1257":      charmap.Windows1257,
	"437":       charmap.CodePage437,
	"850":       charmap.CodePage850,
	"852":       charmap.CodePage852,
	"866":       charmap.CodePage866,
	"88591":     charmap.ISO8859_1,
	"ISO88591":  charmap.ISO8859_1,
	"LATIN1":    charmap.ISO8859_1,
	"88592":     charmap.ISO8859_2,
	"ISO88592":  charmap.ISO8859_2,
	"885915":    charmap.ISO8859_15,
	"ISO885915": charmap.ISO8859_15,
}
