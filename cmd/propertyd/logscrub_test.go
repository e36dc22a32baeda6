package main

import (
	"bytes"
	"errors"
	"log/slog"
	"net/url"
	"strings"
	"testing"
)

// TestLogsNeverShowAConfiguredSecret: whatever quotes a credential of the
// configuration (a provider's key or token, the database's or Redis's
// password), in a message, a string, an error, a group or an attribute
// bound with With, raw or URL-escaped, the line written holds none of
// them, and a line without one is written unchanged.
func TestLogsNeverShowAConfiguredSecret(t *testing.T) {
	cfg := &Config{
		Database: "postgres://app:pg-Pa55word@db.internal:5432/propertyd",
		Providers: map[string]*ProviderConfig{
			"walkscore":        {Options: map[string]string{"api_key": "ws-K3y/with+chars"}},
			"fair_market_rent": {Options: map[string]string{"token": "hud-T0ken-abc"}},
			"demographics":     {Options: map[string]string{"year": "2023"}},
		},
	}
	cfg.Redis.URL = "redis://:r3dis-Secret@cache:6379/0"
	secrets := configuredSecrets(cfg)
	if len(secrets) != 4 {
		t.Fatalf("configuredSecrets = %q, want the key, the token and both passwords", secrets)
	}
	for _, s := range secrets {
		if s == "2023" {
			t.Errorf("the year option was taken for a secret")
		}
	}
	var buf bytes.Buffer
	log := slog.New(scrubbing(slog.NewJSONHandler(&buf, nil), secrets))
	log.With("bound", "token hud-T0ken-abc").Error("failed with ws-K3y/with+chars",
		"url", "https://api/score?wsapikey="+url.QueryEscape("ws-K3y/with+chars"),
		"error", errors.New("dial: password pg-Pa55word refused"),
		slog.Group("redis", "dsn", "redis://:R3DIS-SECRET@cache"),
		"n", 3)
	out := buf.String()
	for _, s := range append(secrets, url.QueryEscape("ws-K3y/with+chars"), "R3DIS-SECRET") {
		if strings.Contains(out, s) {
			t.Errorf("the log line shows %q:\n%s", s, out)
		}
	}
	if !strings.Contains(out, `"n":3`) || !strings.Contains(out, "dial: password <redacted> refused") {
		t.Errorf("the line lost what was not secret:\n%s", out)
	}
	buf.Reset()
	log.Info("plain", "route", "/v1/properties/lookup")
	if !strings.Contains(buf.String(), `"msg":"plain","route":"/v1/properties/lookup"`) {
		t.Errorf("a line without secrets changed: %s", buf.String())
	}
}
