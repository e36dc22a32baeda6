// Package providertest helps tests run propertyd's provider modules against
// fakes. For each upstream it registers httpmock responders that speak that
// upstream's real wire format (the same JSON, CSV or HTML bodies, status codes
// and quirks) built from data the test gives, so a test of code that uses a
// provider needs only a few lines:
//
//	mt := httpmock.NewMockTransport()
//	providertest.RegisterCensusGeocoder(mt, census.DefaultBaseURL, places...)
//	client := &http.Client{Transport: mt}
package providertest
