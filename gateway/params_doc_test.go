package gateway

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/propertyd/propertyd/gateway/docs"
	"github.com/propertyd/propertyd/providers/address"
)

// TestDocumentedLengthsAreTheServers: the document's length bounds are the
// ones the server enforces, so a client validating against them is refused
// nothing it was told it may send, and told nothing the server refuses: a
// street or city is at most address.MaxLen characters (the lookup query and
// a batch address alike), and no query parameter is documented longer than
// the maxParamLen bytes queryParams accepts.
func TestDocumentedLengthsAreTheServers(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters []struct {
				Name   string
				In     string
				Schema struct{ MaxLength *int }
			}
		}
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct{ MaxLength *int }
			}
		}
	}
	if err := json.Unmarshal(docs.Spec(), &doc); err != nil {
		t.Fatal(err)
	}
	show := func(n *int) string {
		if n == nil {
			return "none"
		}
		return fmt.Sprint(*n)
	}
	checked := 0
	for path, ops := range doc.Paths {
		for method, op := range ops {
			for _, p := range op.Parameters {
				if p.In != "query" {
					continue
				}
				n := p.Schema.MaxLength
				if path == "/v1/properties/lookup" && (p.Name == "street" || p.Name == "city") {
					checked++
					if n == nil || *n != address.MaxLen {
						t.Errorf("%s %s: %s has maxLength %s; the server accepts at most %d characters",
							method, path, p.Name, show(n), address.MaxLen)
					}
				}
				if n != nil && *n > maxParamLen {
					t.Errorf("%s %s: %s has maxLength %d; the server refuses any query value over %d bytes",
						method, path, p.Name, *n, maxParamLen)
				}
			}
		}
	}
	for _, field := range []string{"street", "city"} {
		checked++
		if n := doc.Components.Schemas["BatchAddress"].Properties[field].MaxLength; n == nil || *n != address.MaxLen {
			t.Errorf("BatchAddress.%s has maxLength %s; the server accepts at most %d characters", field, show(n), address.MaxLen)
		}
	}
	if checked != 6 {
		t.Fatalf("checked %d street and city bounds, want 6 (lookup's GET and HEAD, and a batch address): did a parameter move?", checked)
	}
}
