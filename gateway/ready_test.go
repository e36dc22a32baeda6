package gateway

import (
	"strconv"
	"testing"
	"time"

	"github.com/propertyd/propertyd/cache"
)

// The table in front of the cache answers only for the id it holds, and
// only until the body's TTL: two ids sharing a slot each get their own
// body, and an expired body is not served from either place.
func TestReadyBodiesAnswerForTheirOwnIDUntilTheirTTL(t *testing.T) {
	c, err := cache.New(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := newReadyBodies(c, time.Hour)
	now := time.Now()
	r.put(7, []byte(`{"id":7}`), now)
	r.put(7+hotSlots, []byte(`{"id":4103}`), now) // the same slot
	c.Wait()
	for _, id := range []int64{7, 7 + hotSlots, 7, 7 + hotSlots} {
		rb, ok := r.get(id, now)
		if !ok || rb.id != id || string(rb.body) != `{"id":`+strconv.FormatInt(id, 10)+`}` {
			t.Fatalf("get(%d) = %v %s, want its own body", id, ok, rb.body)
		}
	}
	short := newReadyBodies(c, 20*time.Millisecond)
	short.put(9, []byte(`{"id":9}`), time.Now())
	c.Wait()
	if _, ok := short.get(9, time.Now()); !ok {
		t.Fatal("a fresh body was not found")
	}
	time.Sleep(40 * time.Millisecond)
	if rb, ok := short.get(9, time.Now()); ok {
		t.Fatalf("a body past its TTL was served: %s", rb.body)
	}
	if _, ok := newReadyBodies(nil, time.Hour).get(9, time.Now()); ok {
		t.Fatal("no cache: a body was found")
	}
}

// With the cache off there is nothing to keep ready bodies in: none is
// served, none is kept, and the table in front of the cache is not made.
func TestReadyBodiesKeepNothingWithoutACache(t *testing.T) {
	r := newReadyBodies(nil, time.Hour)
	if r.hot != nil {
		t.Error("a table of hot bodies was allocated with no cache")
	}
	now := time.Now()
	if rb := r.put(7, []byte(`{"id":7}`), now); string(rb.body) != `{"id":7}` || len(rb.etag) == 0 {
		t.Errorf("put returned %q %q, want the body and its ETag for this answer", rb.body, rb.etag)
	}
	if _, ok := r.get(7, now); ok {
		t.Error("a body was served with no cache")
	}
}
