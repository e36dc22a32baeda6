package loadsql

import (
	"context"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// countsKept is how long an instance's counts are kept after it last
// reported: a stopped instance's row is pruned by the next report.
const countsKept = 7 * 24 * time.Hour

// PutGeocodeCount records what one serving instance's geocoder answered
// since it started (providers.GeocodeCounter), and prunes the rows of
// instances that stopped reporting a week ago.
func (l Lifecycle) PutGeocodeCount(ctx context.Context, c providers.GeocodeCount) error {
	if c.Instance == "" {
		return providers.Invalid("instance", "must not be empty")
	}
	_, err := l.DB.Exec(ctx, l.S.putCount, c.Instance, stamp(c.StartedAt), c.Local, c.Remote, stamp(c.SeenAt))
	if err != nil {
		return l.DB.Err(ctx, err)
	}
	_, err = l.DB.Exec(ctx, l.S.pruneCounts, stamp(c.SeenAt.Add(-countsKept)))
	return l.DB.Err(ctx, err)
}

// GeocodeCounts lists the counts of the instances that reported at or
// after since, by instance.
func (l Lifecycle) GeocodeCounts(ctx context.Context, since time.Time) ([]providers.GeocodeCount, error) {
	rows, err := l.DB.Query(ctx, l.S.listCounts, stamp(since))
	if err != nil {
		return nil, l.DB.Err(ctx, err)
	}
	defer rows.Close()
	var out []providers.GeocodeCount
	for rows.Next() {
		var (
			c             providers.GeocodeCount
			started, seen string
		)
		if err := rows.Scan(&c.Instance, &started, &c.Local, &c.Remote, &seen); err != nil {
			return nil, l.DB.Err(ctx, err)
		}
		c.StartedAt, _ = time.Parse("2006-01-02T15:04:05.000Z", started)
		c.SeenAt, _ = time.Parse("2006-01-02T15:04:05.000Z", seen)
		out = append(out, c)
	}
	return out, l.DB.Err(ctx, rows.Err())
}
