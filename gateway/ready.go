package gateway

import (
	"strconv"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/propertyd/propertyd/cache"
	"github.com/propertyd/propertyd/providers"
)

// readyBody is the answer to GET /v1/properties/{id} without include=,
// kept as the bytes sent and their ETag: a warm GET then neither reads
// nor renders the record, nor hashes the body (together about a tenth of
// its work). It lives in the memory cache beside the record it was
// rendered from, for the same TTL, so it is exactly as current as the
// cached record would be.
type readyBody struct {
	body []byte
	etag []byte
}

func readyKey(id int64) string { return "b:" + strconv.FormatInt(id, 10) }

// readyBodies keeps readyBodies in a cache; a nil cache keeps nothing.
type readyBodies struct {
	c   *cache.Cache
	ttl time.Duration
}

func (r readyBodies) get(id int64) (*readyBody, bool) {
	if r.c == nil {
		return nil, false
	}
	v, ok := r.c.Get(readyKey(id))
	if !ok {
		return nil, false
	}
	return v.(*readyBody), true
}

// put keeps a copy of body (a pooled buffer) for id.
func (r readyBodies) put(id int64, body []byte) *readyBody {
	rb := &readyBody{body: append([]byte(nil), body...)}
	rb.etag = appendETag(nil, rb.body)
	if r.c != nil {
		r.c.Set(readyKey(id), rb, int64(len(rb.body)+len(rb.etag)+96), r.ttl)
	}
	return rb
}

// getReady answers GET /v1/properties/{id} from its ready body, when
// there is one and the request includes no section; ok is false otherwise
// and nothing was sent.
func (g *Gateway) getReady(c *fiber.Ctx, id int64) (ok bool, err error) {
	if inc, _ := g.includes(c); len(inc) > 0 || c.Method() != fiber.MethodGet {
		return false, nil
	}
	rb, ok := g.ready.get(id)
	if !ok {
		return false, nil
	}
	st := stateOf(c)
	st.obs.Served(providers.ReadRecord, providers.TierMemory)
	// Nothing outside the gateway saw the request's context: its state
	// may serve another request once this one is answered.
	st.recycle = true
	return true, sendTagged(c, rb.body, rb.etag)
}
