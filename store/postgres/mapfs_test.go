package postgres

import (
	"io/fs"
	"testing/fstest"
)

// mapFS is a folder of migrations given as name to SQL text.
type mapFS map[string]string

func (m mapFS) fs() fs.FS {
	f := fstest.MapFS{}
	for name, body := range m {
		f[name] = &fstest.MapFile{Data: []byte(body)}
	}
	return f
}
