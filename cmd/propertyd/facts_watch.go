package main

import (
	"context"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// watchFacts asks the database every facts.refresh whether a load of
// assessor data or an import was published, or a load began or ended, or
// a dataset of the loading lifecycle (boundaries, a flood map) was
// published, since it last looked (from this instance or any other,
// through the CLI); when one was, it drops every record and answer the instance holds
// in memory, so the new facts show within one refresh of a load's end on
// every instance of a fleet: the records read while the load merged them
// are dropped again when it ends. Records are otherwise kept until
// cache.record_ttl, and the answers made from them too. It returns when
// ctx is done.
func (m *Main) watchFacts(ctx context.Context, every time.Duration) {
	if every <= 0 {
		every = 10 * time.Second
	}
	last, err := m.dataVersion(ctx)
	if err != nil {
		last = ""
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		m.reportGeocoding(ctx)
		v, err := m.dataVersion(ctx)
		if err != nil || v == last {
			continue
		}
		last = v
		m.cache.Clear()
		m.gw.ForgetAnswers()
		m.Logger.Info("loaded data changed: records held in memory dropped", "version", v)
	}
}

// dataVersion is what changes when any loaded data does: the facts'
// version and the datasets'.
func (m *Main) dataVersion(ctx context.Context) (string, error) {
	f, err := m.db.FactsVersion(ctx)
	if err != nil {
		return "", err
	}
	d, err := m.db.DatasetsVersion(ctx)
	if err != nil {
		return "", err
	}
	return f + "/" + d, nil
}

// reportGeocoding records in the database what this instance's geocoder
// answered since it started, locally or not (providers.GeocodeCounter),
// for propertyd data status; a failure is told at the next report.
func (m *Main) reportGeocoding(ctx context.Context) {
	counter, ok := m.db.(providers.GeocodeCounter)
	if m.local == nil || !ok {
		return
	}
	c := m.local.Counts()
	err := counter.PutGeocodeCount(ctx, providers.GeocodeCount{Instance: m.instance, StartedAt: m.started,
		SeenAt: time.Now(), Local: c.Local, Remote: c.Remote})
	if err != nil && ctx.Err() == nil {
		m.Logger.Warn("could not record the geocoder's counts", "error", err)
	}
}
