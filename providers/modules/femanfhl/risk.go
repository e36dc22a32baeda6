package femanfhl

import "github.com/propertyd/propertyd/providers/floodmap"

// RiskLevel is floodmap.RiskLevel: the propertyd risk level of a FEMA flood
// zone (FLD_ZONE) and its subtype (ZONE_SUBTY), the one reading of zones
// every path shares. Pure and safe for concurrent use.
func RiskLevel(zone, subtype string) string { return floodmap.RiskLevel(zone, subtype) }

// Description is floodmap.Description: what a FEMA flood zone and its
// subtype mean, in words. Pure and safe for concurrent use.
func Description(zone, subtype string) string { return floodmap.Description(zone, subtype) }
