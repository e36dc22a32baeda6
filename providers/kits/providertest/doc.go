// Package providertest helps tests run propertyd's provider modules against
// fakes. For each upstream it registers httpmock responders that speak that
// upstream's real wire format (the same JSON, CSV or HTML bodies, status codes
// and quirks) built from data the test gives, so a test of code that uses a
// provider needs only a few lines:
//
//	mt := httpmock.NewMockTransport()
//	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, places...)
//	client := &http.Client{Transport: mt}
//
// The answers come from the module's internal fakeupstream package, the
// same ones the upstream sandbox (cmd/sandbox) serves over real HTTP; this
// package only registers them with httpmock. It does not import testing, so
// it may be imported from any test helper.
package providertest
