package service

import (
	"encoding/json"
	"time"

	"github.com/propertyd/propertyd/providers"
)

// stamp is the time a value fetched now is stored with: UTC, to the
// millisecond, as the store keeps it, so every tier renders one body and
// one ETag.
func (sec *Section) stamp() time.Time {
	return sec.svc.cfg.Now().UTC().Truncate(time.Millisecond)
}

// valueRecord is the record that keeps val, the module's answer at key,
// fetched at fetched, for the section's TTL, with the source and vintage
// the value reports (the module's name when it reports none).
func (sec *Section) valueRecord(key string, val any, fetched time.Time) (providers.SectionRecord, error) {
	data, err := json.Marshal(val)
	if err != nil {
		return providers.SectionRecord{}, providers.Wrap(err, providers.KindInternal, providers.CodeInternalError, "could not encode a section")
	}
	source, vintage := sec.Source, ""
	if pv, ok := val.(providers.Provenanced); ok {
		if s, v := pv.Provenance(); s != "" {
			source, vintage = s, v
		}
	}
	return providers.SectionRecord{Section: sec.Name, Key: key, Data: data, Source: source,
		Vintage: vintage, FetchedAt: fetched, ExpiresAt: fetched.Add(sec.TTL)}, nil
}

// missingRecord is the record that keeps, for the section's TTL, the
// upstream's word (pe, a KindNotFound error) that it has no data at key,
// so nobody asks again until it expires.
func (sec *Section) missingRecord(key string, pe *providers.Error, fetched time.Time) providers.SectionRecord {
	data, _ := json.Marshal(struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}{pe.Code, pe.Message})
	return providers.SectionRecord{Section: sec.Name, Key: key, Data: data, Source: sec.Source,
		FetchedAt: fetched, ExpiresAt: fetched.Add(sec.TTL), Missing: true}
}
