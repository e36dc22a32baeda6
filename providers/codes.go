package providers

// The codes of Error: stable snake_case identifiers a client may switch on,
// written in the code member of a problem document, in a batch answer's
// errors and in meta.sections.<name>.error. They are the one list: code that
// builds an *Error names one of these rather than a string of its own, and
// TestEveryCodeIsDocumented holds the list, README's "Errors" section and
// gateway/docs/openapi.json to each other. The HTTP status comes from the
// error's Kind, never from its code.
const (
	// CodeInvalidParameter (400) is bad request input: a parameter that is
	// missing, malformed, out of range, repeated or unknown, named in
	// Error.Params (see Invalid).
	CodeInvalidParameter = "invalid_parameter"
	// CodeBadRequest (400) is a request the gateway could not parse at all,
	// or whose framing it refuses under RFC 9112 (two Content-Length
	// headers, no Host, a header line not ended by CRLF).
	CodeBadRequest = "bad_request"
	// CodeRequestTimeout (400) is a request that took too long to arrive.
	CodeRequestTimeout = "request_timeout"
	// CodeInvalidBody (400) is a request body that is not the JSON its
	// endpoint reads: malformed, not one object, or naming a member twice
	// anywhere (the member's path is in Error.Params).
	CodeInvalidBody = "invalid_body"
	// CodeInvalidAddress is a batch item that is not an address object; it
	// appears only in a batch answer's errors (a member of one that is
	// missing, unknown or not a string is invalid_parameter, as in lookup).
	CodeInvalidAddress = "invalid_address"
	// CodeUnauthorized (401) is a missing or unknown API key.
	CodeUnauthorized = "unauthorized"
	// CodeAddressNotFound (404) is an address the geocoder could not match
	// (ErrNoMatch).
	CodeAddressNotFound = "address_not_found"
	// CodeLocationNotFound (404) is a point the reverse geocoder places in
	// no county.
	CodeLocationNotFound = "location_not_found"
	// CodePropertyNotFound (404) is a property id no record has.
	CodePropertyNotFound = "property_not_found"
	// CodeTractNotFound (404, or a section's error) is a census tract the
	// ACS has no figures for; the answer is remembered for the section's TTL.
	CodeTractNotFound = "tract_not_found"
	// CodeSectionNotFound (a section's error) is a stored "no data at this
	// key" answer that kept no code of its own (see
	// SectionRecord.MissingError), and a store's "no stored value" for a
	// section.
	CodeSectionNotFound = "section_not_found"
	// CodeNotFound (404) is a route that does not exist.
	CodeNotFound = "not_found"
	// CodeMethodNotAllowed (405) is a method the route does not take.
	CodeMethodNotAllowed = "method_not_allowed"
	// CodeBodyTooLarge (413) is a request body over the configured limit.
	CodeBodyTooLarge = "body_too_large"
	// CodeUnsupportedMediaType (415) is a batch body not sent as JSON.
	CodeUnsupportedMediaType = "unsupported_media_type"
	// CodeNotAProperty (422) is a street that is a post office box or a
	// private mailbox: a mail drop, not a building, so nothing to look up
	// (see address.Normalize).
	CodeNotAProperty = "not_a_property"
	// CodeAmbiguousAddress (409) is an address the geocoder matched to
	// several different addresses (a street name in two towns of one state,
	// two ZIP codes): nothing is created, and the problem lists them in
	// candidates. Adding the ZIP code or the city settles it, and so does
	// match=best, which takes the geocoder's first candidate.
	CodeAmbiguousAddress = "ambiguous_address"
	// CodeInexactMatch (409) is a lookup with match=strict whose match
	// changed a part of the address (named in Error.Params): nothing is
	// created.
	CodeInexactMatch = "inexact_match"
	// CodeInvalidBatchSize (422) is a batch of fewer than 1 or more than 25
	// addresses.
	CodeInvalidBatchSize = "invalid_batch_size"
	// CodeCostExceedsLimit (422) is a request costing more than the API
	// key's burst, which no wait would let through.
	CodeCostExceedsLimit = "cost_exceeds_limit"
	// CodeSectionNotApplicable (422, or a section's error) is a section the
	// record lacks what it needs for, e.g. a census tract.
	CodeSectionNotApplicable = "section_not_applicable"
	// CodeRateLimited (429) is an API key over its budget, with Retry-After.
	CodeRateLimited = "rate_limited"
	// CodeUpstreamError (502, or a section's error) is an upstream that
	// failed once connected: it answered with an error status or an error
	// document, sent an answer that is not its format, or broke off the
	// connection before its answer was complete.
	CodeUpstreamError = "upstream_error"
	// CodeUpstreamRateLimited (502, or a section's error) is an upstream
	// limiting our request rate, with the Retry-After it sent.
	CodeUpstreamRateLimited = "upstream_rate_limited"
	// CodeUpstreamBadResponse (502, or a section's error) is an answer of
	// the Census ACS that could not be read (an HTML page, a missing column).
	CodeUpstreamBadResponse = "upstream_bad_response"
	// CodeUpstreamUnreachable (502, or a section's error) is an upstream no
	// connection could be made to: its name did not resolve, it refused
	// the connection, or the TLS handshake failed (KindUnreachable, see
	// upstream.TransportError). The upstream never saw the request.
	CodeUpstreamUnreachable = "upstream_unreachable"
	// CodeUpstreamRejectedInput (502, or a section's error) is an upstream
	// refusing the request's parameters (HUD's HTTP 400, Walk Score's
	// invalid coordinates).
	CodeUpstreamRejectedInput = "upstream_rejected_input"
	// CodeUpstreamIncomplete (502, or a section's error) is an Overpass
	// answer cut short by the server (a timeout or memory remark).
	CodeUpstreamIncomplete = "upstream_incomplete"
	// CodeScorePending (502, or a section's error) is Walk Score still
	// calculating a place's score; asking later helps.
	CodeScorePending = "score_pending"
	// CodeUpstreamUnavailable (503, or a section's error) is an upstream
	// whose circuit breaker is open, with Retry-After.
	CodeUpstreamUnavailable = "upstream_unavailable"
	// CodeUpstreamMisconfigured (503, or a section's error) is a module
	// whose configuration the upstream refuses: a missing or invalid API
	// key, a base URL or dataset that does not exist.
	CodeUpstreamMisconfigured = "upstream_misconfigured"
	// CodeSectionNotConfigured (503, or a section's error) is a section no
	// module is configured for.
	CodeSectionNotConfigured = "section_not_configured"
	// CodeDatabaseUnavailable (503) is a PostgreSQL server that cannot be
	// reached, or a SQLite file another process kept locked for the whole
	// busy timeout.
	CodeDatabaseUnavailable = "database_unavailable"
	// CodeUpstreamTimeout (504, or a section's error) is an upstream that
	// did not answer in time.
	CodeUpstreamTimeout = "upstream_timeout"
	// CodeHTTPVersionNotSupported (505) is a request line naming an HTTP
	// version other than 1.x (HTTP/2.0 sent in the clear, HTTP/9.9): the
	// gateway speaks HTTP/1.0 and HTTP/1.1.
	CodeHTTPVersionNotSupported = "http_version_not_supported"
	// CodeInternalError (500) is a failure of our own; the client sees no
	// more, the log has the cause. Every KindInternal error is answered
	// with this code, whatever its own.
	CodeInternalError = "internal_error"
)

// Codes that never reach an HTTP client: they classify errors for the
// command line, the logs and the callers inside the service.
const (
	// CodeCanceled is a caller that went away. It never reaches an HTTP
	// client: nothing is sent to a client that has gone.
	CodeCanceled = "canceled"
	// CodeInvalidConfig is a configuration value a module or the store
	// rejects. It never reaches an HTTP client: it stops start-up.
	CodeInvalidConfig = "invalid_config"
	// CodeSchemaTooNew is a database migrated by a newer binary. It never
	// reaches an HTTP client: it stops start-up and the migrate command.
	CodeSchemaTooNew = "schema_too_new"
	// CodeBatchTooLarge is a batch geocoding call with more rows than the
	// upstream takes. It never reaches an HTTP client: only the bulk import
	// geocodes in batches.
	CodeBatchTooLarge = "batch_too_large"
	// CodeFMRNotFound is a county HUD publishes no fair market rents for.
	// It never reaches an HTTP client: the rents are embedded in the housing
	// section, which leaves them null (the answer is remembered like any
	// "no data here").
	CodeFMRNotFound = "fmr_not_found"
	// CodeInvalidBatch is a batch geocoding call whose rows cannot be sent
	// (an empty, repeated or multi-line id). It never reaches an HTTP
	// client: only the bulk import geocodes in batches.
	CodeInvalidBatch = "invalid_batch"
)
