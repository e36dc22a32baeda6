package upstream_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/providers"
	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// TestScrubRemovesWhatWasSentInEveryEncoding: an upstream that echoes the
// request, whichever way it writes it, leaves none of it in the error's
// text.
func TestScrubRemovesWhatWasSentInEveryEncoding(t *testing.T) {
	private := []string{"4321 Secretive Lane", "Privacyville", "Zoë & Ünïcode Rd", "-97.74036", "30.27472", "k3y-S3cr3t"}
	for _, echo := range []string{
		`{"result":{"input":{"address":{"street":"4321 Secretive Lane","city":"Privacyville"}}}}`,
		`could not process /geocoder?street=4321+Secretive+Lane&city=Privacyville`,
		`GET /x/4321%20Secretive%20Lane failed`,
		`4321 SECRETIVE LANE, PRIVACYVILLE`,
		`4321 SECRETIVE LN`,                      // abbreviated: the number and the word go
		`"Zo\u00eb \u0026 \u00dcn\u00efcode Rd"`, // a JSON encoder's escapes
		`Zoë \u0026 Ünïcode Rd`,
		`Zo%C3%AB+%26+%C3%9Cn%C3%AFcode+Rd`,
		`Zoë &amp; Ünïcode Rd`,
		`{"geometry":"-97.74036,30.27472"}`,
		`key=k3y-S3cr3t&for=tract`,
		`key=K3Y-S3CR3T`,
	} {
		got := upstream.Scrub(fmt.Errorf("HTTP 500: %s", echo), private...).Error()
		for _, leak := range []string{"4321", "secretive", "privacyville", "ünïcode", "%C3%9Cn", "97.74036", "30.27472", "s3cr3t"} {
			if strings.Contains(strings.ToLower(got), strings.ToLower(leak)) {
				t.Errorf("scrubbing %q left %q: %s", echo, leak, got)
			}
		}
		if !strings.HasPrefix(got, "HTTP 500: ") {
			t.Errorf("scrubbing %q removed the error's own words: %s", echo, got)
		}
	}
}

// TestScrubKeepsTheError: the scrubbed error is still the error it was,
// for errors.Is and errors.As, for a *providers.Error's kind, code and
// Retry-After, and a shared sentinel is never changed.
func TestScrubKeepsTheError(t *testing.T) {
	cause := errors.New("body: 4321 Secretive Lane")
	pe := &providers.Error{Kind: providers.KindUpstream, Code: providers.CodeUpstreamError,
		Message: "the geocoder failed", RetryAfter: 3, Err: cause}
	got := upstream.Scrub(pe, "4321 Secretive Lane")
	if !errors.Is(got, cause) {
		t.Error("errors.Is no longer finds the cause")
	}
	gpe, ok := got.(*providers.Error)
	if !ok || gpe.Kind != pe.Kind || gpe.Code != pe.Code || gpe.RetryAfter != 3 || gpe.Message != pe.Message {
		t.Fatalf("scrubbed error = %#v, want the same kind, code, message and Retry-After", got)
	}
	if strings.Contains(got.Error(), "Secretive") {
		t.Errorf("scrubbed text %q still holds the street", got.Error())
	}
	if pe.Err != cause || !strings.Contains(pe.Error(), "Secretive") {
		t.Error("Scrub changed the error it was given")
	}
	if got := upstream.Scrub(providers.ErrNoMatch, "4321 Secretive Lane"); got != providers.ErrNoMatch {
		t.Errorf("the no-match sentinel came back as %#v", got)
	}
	if upstream.Scrub(nil, "x") != nil {
		t.Error("a nil error did not stay nil")
	}
	if e := errors.New("HTTP 500"); upstream.Scrub(e) != e || upstream.Scrub(e, "TX", "") != e {
		t.Error("an error with nothing to scrub (no values, or values too short to remove) was wrapped")
	}
}
