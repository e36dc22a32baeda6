// Package service is propertyd's application: what the service does,
// independent of HTTP (the gateway), of SQL (the store) and of any
// upstream's wire format (the provider modules). It knows the domain types
// and interfaces of package providers and nothing else of the outside.
//
// The use cases, and where each lives:
//
//   - Lookup (lookup.go): an address as a client typed it is normalized
//     into a lookup key (the identity: two spellings, one record); a key
//     seen before is answered from the store; otherwise the geocoder is
//     asked once (concurrent first lookups share the call, across the
//     instances of a fleet too when Config.Leases is set) with the text as
//     written, and the match is saved under its canonical address. An
//     unmatched spelling is remembered for MissTTL. An address may come
//     as one line (Address.Line), read for its identity by
//     address.NormalizeLine and sent to the geocoder as the line.
//   - Matching (match.go): Resolve decides what the geocoder's answer is
//     for the client's address, for lookup, batch and import alike: one
//     address (two TIGER edges included) or several different ones
//     (ambiguous_address, unless match=best), and how it matched
//     (providers.Match: exact, non_exact with the differences that
//     address.Differences names; databaseMatch for a known spelling).
//     NewRecord is the record a match makes, under its canonical address.
//     A record keeps how it was first matched.
//   - Reverse (service.go): the nearest stored record within ReverseRadius
//     of a point, or a new partial record from the reverse geocoder, with
//     the address of the nearest address point of a loaded extract that
//     gives one (pointAddress) within AddressPointRadius.
//   - Get and Search (service.go): records by id, and pages of records by
//     filters, straight from the store.
//   - Batch (batch.go): up to MaxBatch lookups at once, each as Lookup, with
//     one geocoder call per distinct address.
//   - Enrich and SectionOf (enrich.go): the sections of a record, each
//     cached at its natural key in the store for its TTL (or until its
//     module serves a newer data release), fetched through its module's
//     breaker when missing, and remembered as missing when the upstream
//     has no data there. An expired value is served at once, as stale,
//     while one refresh runs in the background (refresh.go: one per key,
//     a bounded number at once, stopped by Close); a section set to
//     refresh synchronously fetches first and serves it stale only when
//     the upstream fails.
//   - Regions (region.go): a section whose module answers a whole region
//     at once (the ACS: every tract of a state) loads the region at the
//     first need of a key in it, for every section of that kind, one
//     call per region and section across the fleet, and answers keys the
//     region lacks as missing without asking again; LoadRegion preloads.
//   - Import (importer.go): bulk loading of addresses with attributes, one
//     batch geocoder call per chunk, saved exactly as Lookup saves.
//   - Flights (flight.go): every call made for a value the store lacks (a
//     geocoding, a reverse geocoding, a section's fetch, a region's load)
//     is a trip that flights makes once for everyone who needs it, on this
//     instance and, with Leases, across the fleet; it rechecks the store
//     when another writer may have stored the value meanwhile, remembers
//     what was asked and not found, and says which tier answered. Every
//     value the service returns carries that tier (Source.Tier,
//     SectionResult.Tier), which the gateway counts.
//
// What a section is, is declared once, in the catalogue (catalog.go): its
// role, natural key, default TTL, cost, whether it is internal (embedded
// in another, with no endpoint of its own), include-form renames and
// embeds. Configuration, wiring (Config.Add), the gateway and
// the OpenAPI check all read it, so a new section is a catalogue entry and
// a provider module.
package service
