package dataload

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Fingerprint names a load's input: extra (what else decides what is
// loaded from the files, such as a mapping), then each file's base name,
// size and the SHA-256 of its first MiB and, when tail is set, its last
// (a newer edition of a file often differs only in a header's date and its
// length). The same files under the same extra resume or skip a load;
// anything else is a new load.
func Fingerprint(files []string, extra []byte, tail bool) (string, error) {
	h := sha256.New()
	h.Write(extra)
	for _, p := range files {
		if err := hashFile(h, p, tail); err != nil {
			return "", err
		}
	}
	return hex.EncodeToString(h.Sum(nil))[:32], nil
}

func hashFile(h io.Writer, p string, tail bool) error {
	f, err := os.Open(p)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "\x00%s\x00%d\x00", filepath.Base(p), st.Size())
	if _, err := io.CopyN(h, f, 1<<20); err != nil && err != io.EOF {
		return err
	}
	if tail && st.Size() > 2<<20 {
		if _, err := io.Copy(h, io.NewSectionReader(f, st.Size()-1<<20, 1<<20)); err != nil {
			return err
		}
	}
	return nil
}
