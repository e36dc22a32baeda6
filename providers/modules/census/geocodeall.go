package census

import (
	"context"
	"strconv"

	"github.com/propertyd/propertyd/providers"
)

var _ providers.BatchGeocoder = (*Client)(nil)

// GeocodeAll implements providers.BatchGeocoder on the batch endpoint: it
// sends addrs MaxBatchRows at a time through GeocodeBatch, numbering the
// rows itself, and returns one match per address in the order of addrs. A
// No_Match row becomes providers.ErrNoMatch. A Tie row says only that the
// address matched several candidates, not which: its address is asked
// again alone (Geocode), so that its match comes back with the candidates
// in Others, as a lookup's does. Errors as for GeocodeBatch, and Geocode's
// upstream errors for a Tie row asked again; on error no results come
// back, even from calls that succeeded before it.
func (c *Client) GeocodeAll(ctx context.Context, addrs []providers.Address) ([]providers.BatchMatch, error) {
	out := make([]providers.BatchMatch, 0, len(addrs))
	for start := 0; start < len(addrs); start += MaxBatchRows {
		chunk := addrs[start:min(start+MaxBatchRows, len(addrs))]
		rows := make([]BatchRow, len(chunk))
		for i, a := range chunk {
			rows[i] = BatchRow{ID: strconv.Itoa(i + 1), Address: a}
		}
		results, err := c.GeocodeBatch(ctx, rows)
		if err != nil {
			return nil, err
		}
		for i, r := range results {
			switch {
			case r.Matched:
				out = append(out, providers.BatchMatch{Location: r.Location})
			case r.Tie:
				loc, err := c.Geocode(ctx, chunk[i])
				switch {
				case err == nil:
					out = append(out, providers.BatchMatch{Location: loc})
				case providers.CodeOf(err) == providers.ErrNoMatch.Code:
					out = append(out, providers.BatchMatch{Err: providers.ErrNoMatch})
				default:
					return nil, err
				}
			default:
				out = append(out, providers.BatchMatch{Err: providers.ErrNoMatch})
			}
		}
	}
	return out, nil
}
