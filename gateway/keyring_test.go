package gateway

import (
	"crypto/sha256"
	"fmt"
	"sync"
	"testing"
)

func testKeyring() *keyring {
	return newKeyring([]Key{
		{Name: "alpha", SHA256: sha256.Sum256([]byte("alpha-secret-key-0001"))},
		{Name: "beta", SHA256: sha256.Sum256([]byte("beta-secret-key-0002"))},
	})
}

func TestKeyringNamesEachKeyAndRefusesTheRest(t *testing.T) {
	r := testKeyring()
	for range 3 { // the first time verified by SHA-256, then remembered
		for _, c := range []struct{ presented, want string }{
			{"alpha-secret-key-0001", "alpha"},
			{"beta-secret-key-0002", "beta"},
			{"", ""},
			{"alpha-secret-key-0002", ""},
			{"alpha-secret-key-0001 ", ""},
			{"ALPHA-SECRET-KEY-0001", ""},
			{"alpha-secret-key-000", ""},
			{"' OR 1=1 --", ""},
			{"ключ-🔑", ""},
		} {
			if got := r.name([]byte(c.presented)); got != c.want {
				t.Errorf("name(%q) = %q, want %q", c.presented, got, c.want)
			}
		}
	}
	if n := len(*r.known.Load()); n != 2 {
		t.Errorf("%d keys remembered, want the 2 verified (a refused key is never remembered)", n)
	}
}

// A remembered key is named by its keyed hash alone: with the configured
// digests gone, it is still named, and nothing else is.
func TestKeyringNamesARememberedKeyWithoutSHA256(t *testing.T) {
	r := testKeyring()
	if got := r.name([]byte("alpha-secret-key-0001")); got != "alpha" {
		t.Fatalf("first presentation named %q, want alpha", got)
	}
	r.keys = nil
	if got := r.name([]byte("alpha-secret-key-0001")); got != "alpha" {
		t.Errorf("remembered key named %q, want alpha", got)
	}
	if got := r.name([]byte("beta-secret-key-0002")); got != "" {
		t.Errorf("a key never verified was named %q with no configured key left", got)
	}
}

// Callers refused by the thousand leave nothing behind, and keys verified
// concurrently are each named right.
func TestKeyringUnderConcurrentCallers(t *testing.T) {
	r := testKeyring()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 500 {
				if got := r.name([]byte(fmt.Sprintf("guess-%d-%d", g, i))); got != "" {
					t.Errorf("a guess was named %q", got)
					return
				}
				if got := r.name([]byte("beta-secret-key-0002")); got != "beta" {
					t.Errorf("beta named %q", got)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := len(*r.known.Load()); n != 1 {
		t.Errorf("%d keys remembered after 4,000 guesses and one real key, want 1", n)
	}
}

// FuzzKeyringNamesOnlyTheConfiguredKeys: whatever bytes are presented, in
// whatever order after the real keys were remembered, the name is the
// configured key's whose SHA-256 they have, and "" for anything else.
func FuzzKeyringNamesOnlyTheConfiguredKeys(f *testing.F) {
	for _, s := range []string{"alpha-secret-key-0001", "beta-secret-key-0002", "", "alpha-secret-key-000", "\x00", "ключ"} {
		f.Add([]byte(s))
	}
	r := testKeyring()
	r.name([]byte("alpha-secret-key-0001"))
	r.name([]byte("beta-secret-key-0002"))
	f.Fuzz(func(t *testing.T, presented []byte) {
		want := ""
		switch string(presented) {
		case "alpha-secret-key-0001":
			want = "alpha"
		case "beta-secret-key-0002":
			want = "beta"
		}
		if got := r.name(presented); got != want {
			t.Fatalf("name(%q) = %q, want %q", presented, got, want)
		}
		if n := len(*r.known.Load()); n != 2 {
			t.Fatalf("%d keys remembered after %q, want 2", n, presented)
		}
	})
}
