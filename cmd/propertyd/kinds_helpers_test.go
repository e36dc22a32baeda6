package main

import (
	"github.com/propertyd/propertyd/providers/dataload"
	"github.com/propertyd/propertyd/providers/osmextract"
	"github.com/propertyd/propertyd/store/engine"
)

// osmLoadHeapMB is the heap limit "data load osm" sets under cfg: the osm
// kind's own (osmextract.HeapMB), given what the command line tells every
// kind of the configuration.
func osmLoadHeapMB(cfg *Config) int64 {
	return osmextract.HeapMB(&dataload.Env{MemoryLimitMB: cfg.MemoryLimitMB, MemoryLimitDefault: cfg.memoryLimitDefault,
		Postgres: engine.IsPostgres(cfg.Database)})
}
