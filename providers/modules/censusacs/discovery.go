package censusacs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// How the newest 5-year release is followed (year option "latest").
const (
	// DiscoveryTTL is how long a discovered release is trusted before the
	// discovery document is asked again. Releases come once a year.
	DiscoveryTTL = 24 * time.Hour
	// DiscoveryRetry is how long after a failed discovery the next is tried.
	DiscoveryRetry = time.Hour
	// DiscoveryTimeout bounds one discovery, retries included. It runs
	// apart from any fetch, so it is not bounded by the fetch's timeout:
	// the document lists every dataset of the API and is large.
	DiscoveryTimeout = time.Minute
	// DiscoveryWait bounds how long a fetch waits for the first discovery
	// before it asks for DefaultYear: a slow or hanging discovery must not
	// use up the fetch's own timeout (and trip its breaker). A value of
	// that year is refreshed once the newer release is learned.
	DiscoveryWait = 3 * time.Second
)

// maxDiscoveryBody bounds how much of the discovery document is read. It
// lists every dataset of every year the API serves, so it is large.
const maxDiscoveryBody = 64 << 20

// DiscoveryURL returns the URL of the discovery document of the API at
// base: base with ".json" appended, as the API serves a DCAT catalogue of
// every path (https://api.census.gov/data.json lists every dataset,
// https://api.census.gov/data/2022/acs/acs5.json one). It is public: the
// API key is not sent with it.
func DiscoveryURL(base string) string { return strings.TrimRight(base, "/") + ".json" }

// NewestYear returns the newest ACS 5-year vintage that the discovery
// document body lists: the largest c_vintage of the datasets whose
// c_dataset is exactly ["acs", "acs5"] (the detailed tables; not acs1, not
// acs5/profile or other tables of the 5-year release) and that are not
// marked unavailable (c_isAvailable false). Vintages before 2009, the
// first 5-year release, or after now's year (a release comes out the year
// after its vintage) are ignored as nonsense. The document is DCAT-US
// (Project Open Data 1.1): {"dataset": [{"c_vintage": 2023, "c_dataset":
// ["acs", "acs5"], ...}, ...]}; c_vintage is a JSON number, absent for
// time series. It fails with KindUpstream (upstream_bad_response) when
// body is not such a document or lists no 5-year release.
func NewestYear(body io.Reader, now time.Time) (string, error) {
	var doc struct {
		Dataset []struct {
			Vintage   json.RawMessage `json:"c_vintage"`
			Dataset   []string        `json:"c_dataset"`
			Available *bool           `json:"c_isAvailable"`
		} `json:"dataset"`
	}
	if err := json.NewDecoder(body).Decode(&doc); err != nil {
		return "", badResponse(fmt.Errorf("discovery document: %w", err))
	}
	newest := 0
	for _, d := range doc.Dataset {
		if len(d.Dataset) != 2 || d.Dataset[0] != "acs" || d.Dataset[1] != "acs5" || (d.Available != nil && !*d.Available) {
			continue
		}
		y, err := strconv.Atoi(string(bytes.Trim(d.Vintage, `"`)))
		if err != nil || y < firstYear || y > now.Year() {
			continue
		}
		newest = max(newest, y)
	}
	if newest == 0 {
		return "", badResponse(fmt.Errorf("the discovery document lists no acs/acs5 dataset among its %d", len(doc.Dataset)))
	}
	return strconv.Itoa(newest), nil
}

// year returns the year a fetch asks for: the pinned one, or the newest
// discovered. A discovery that is due is started in the background; the
// fetch waits for it only when no release was learned yet, and no longer
// than DiscoveryWait and ctx allow, then falls back to DefaultYear.
func (c *Client) year(ctx context.Context) string {
	if c.pinned != "" {
		return c.pinned
	}
	ends := c.discoverWhenDue()
	if y := c.latest.Load(); y != nil {
		return *y
	}
	if ends != nil {
		wait := time.NewTimer(DiscoveryWait)
		defer wait.Stop()
		select {
		case <-ends:
		case <-wait.C:
		case <-ctx.Done():
		}
	}
	return c.Year()
}

// discoverWhenDue starts a discovery in the background when one is due
// and none runs, and returns a channel closed when the running one ends
// (nil when none runs).
// setNext records when the next discovery is due; c.mu is held.
func (c *Client) setNext(t time.Time) {
	c.next = t
	c.nextDue.Store(t.UnixNano())
}

// discoverIfDue starts a discovery when one is due, without waiting for it.
// It runs on every read of a stored value (Supersedes), so while none is
// due it answers from an atomic, without taking c.mu: a mutex there made
// every warm request of demographics and housing queue on one lock.
func (c *Client) discoverIfDue() {
	if c.now().UnixNano() < c.nextDue.Load() {
		return
	}
	c.discoverWhenDue()
}

func (c *Client) discoverWhenDue() <-chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ends == nil && !c.now().Before(c.next) {
		c.ends = make(chan struct{})
		go c.discover(c.ends)
	}
	return c.ends
}

// discover asks the discovery document for the newest release, records it
// (or the failure, logged), and closes ends.
func (c *Client) discover(ends chan struct{}) {
	ctx, cancel := context.WithTimeout(context.Background(), DiscoveryTimeout)
	defer cancel()
	now := c.now()
	year, err := c.newestYear(ctx, now)
	c.mu.Lock()
	defer c.mu.Unlock()
	defer close(ends)
	c.ends = nil
	if err != nil {
		c.setNext(now.Add(DiscoveryRetry))
		c.log.Warn("census ACS: could not discover the newest 5-year release; asking for the last one known",
			"year", c.Year(), "retry_in", DiscoveryRetry.String(), "error", err.Error())
		return
	}
	c.setNext(now.Add(DiscoveryTTL))
	if old := c.latest.Load(); old == nil || *old != year {
		c.latest.Store(&year)
		c.log.Info("census ACS: newest 5-year release", "year", year)
	}
}

// newestYear asks for the discovery document and reads it with NewestYear.
func (c *Client) newestYear(ctx context.Context, now time.Time) (string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, DiscoveryURL(c.base), nil)
	if err != nil {
		return "", err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return "", transportError(upstream.TransportError(ctx, err, service))
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 1024))
		return "", providers.Wrap(fmt.Errorf("discovery document: HTTP %d: %s", resp.StatusCode, firstLine(b)),
			providers.KindUpstream, "upstream_error", "the census ACS API answered with an error")
	}
	if strings.Contains(strings.ToLower(resp.Header.Get("Content-Type")), "html") {
		return "", badResponse(errors.New("discovery document: an HTML page"))
	}
	return NewestYear(io.LimitReader(resp.Body, maxDiscoveryBody), now)
}
