package gateway

import (
	"crypto/sha256"
	"crypto/subtle"
	"hash/maphash"
	"maps"
	"sync"
	"sync/atomic"
)

// keyring names the caller of a presented API key.
//
// The configuration holds each key's SHA-256 only, so naming a caller
// means hashing what it presents. SHA-256 of a key took 2,900 instructions,
// a seventh of a warm GET's whole cost and the largest part of what
// propertyd adds to Fiber's. So a key, once its SHA-256 has matched a
// configured one, is remembered by a 128-bit keyed hash of its bytes
// (hash/maphash under two seeds drawn at start, about 150 instructions),
// and a later request presenting the same bytes is named by that hash
// alone.
//
// What this keeps in memory is no more than the configuration already
// holds: not the key, but a digest of it that, like the SHA-256, can only
// be reversed by guessing the key. A forgery would have to give the same
// 128 bits as a real key under seeds it cannot see, with no answer but
// 401 to learn from; keys that fail are never remembered, so the map holds
// at most one entry per configured key, whatever callers send. Presented
// bytes that were never verified are always hashed with SHA-256 and
// compared in constant time against every configured key.
type keyring struct {
	keys  []Key
	seeds [2]maphash.Seed
	// known maps the keyed hash of each verified key to its name; replaced
	// whole under mu when a key is first verified, read without a lock.
	known atomic.Pointer[map[[2]uint64]string]
	mu    sync.Mutex
}

func newKeyring(keys []Key) *keyring {
	r := &keyring{keys: keys, seeds: [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}}
	r.known.Store(&map[[2]uint64]string{})
	return r
}

// name is the name of the configured key presented, or "" when none
// matches (or none was presented).
func (r *keyring) name(presented []byte) string {
	if len(presented) == 0 {
		return ""
	}
	h := [2]uint64{maphash.Bytes(r.seeds[0], presented), maphash.Bytes(r.seeds[1], presented)}
	if name, ok := (*r.known.Load())[h]; ok {
		return name
	}
	name := r.verify(presented)
	if name != "" {
		r.remember(h, name)
	}
	return name
}

// verify compares the SHA-256 of presented with every configured key's, in
// constant time, all of them whatever matched.
func (r *keyring) verify(presented []byte) string {
	sum := sha256.Sum256(presented)
	name := ""
	for _, k := range r.keys {
		if subtle.ConstantTimeCompare(sum[:], k.SHA256[:]) == 1 {
			name = k.Name
		}
	}
	return name
}

// remember keeps h as the keyed hash of the verified key named name.
func (r *keyring) remember(h [2]uint64, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := *r.known.Load()
	if _, ok := old[h]; ok {
		return
	}
	known := maps.Clone(old)
	known[h] = name
	r.known.Store(&known)
}
