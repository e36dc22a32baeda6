package address

import "testing"

// TestTablesKeepClasses protects idempotency: rewriting a word to its
// standard form must not change which tables know it, or a normalized
// street would parse differently from the spelling it came from.
func TestTablesKeepClasses(t *testing.T) {
	tables := map[string]map[string]string{
		"suffixes": suffixes, "directionals": directionals,
		"designators": designators, "ordinals": ordinals,
	}
	for name, tab := range tables {
		for spelling, std := range tab {
			if tab[std] != std {
				t.Errorf("%s: standard %q of %q does not map to itself", name, std, spelling)
			}
			for other, otab := range tables {
				_, a := otab[spelling]
				_, b := otab[std]
				if a != b {
					t.Errorf("%s rewrites %q to %q, but only one of them is in %s", name, spelling, std, other)
				}
			}
		}
	}
	for std := range standalone {
		if designators[std] != std {
			t.Errorf("standalone designator %q is not a standard designator", std)
		}
	}
}
