package gateway

import "time"

// ReadyAnswer returns the ready answer g keeps for a lookup of query (the
// query string as sent), and whether one is current now.
func ReadyAnswer(g *Gateway, query string) ([]byte, bool) {
	rb, ok := g.ready.getAnswer(lookupKey([]byte(query)), time.Now())
	if !ok {
		return nil, false
	}
	return rb.body, true
}
