package main

import (
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"

	"github.com/propertyd/propertyd/providers/modules/upstream"
)

// dsnPassword finds the password of a key=value connection string.
var dsnPassword = regexp.MustCompile(`(?i)\bpassword\s*=\s*('(?:[^'\\]|\\.)*'|\S+)`)

// configuredSecrets returns the values of the configuration that no log
// line may show: every provider option whose name says it is a credential
// (isSecretOption, as check-config masks them),
// and the passwords in the database and Redis URLs. Each module already
// removes its own from the errors it returns (upstream.Scrub); this list
// is the last guard, for a line that quotes one some other way.
func configuredSecrets(c *Config) []string {
	var out []string
	for _, pc := range c.Providers {
		if pc == nil {
			continue
		}
		for name, v := range pc.Options {
			if isSecretOption(name) && v != "" {
				out = append(out, v)
			}
		}
	}
	for _, raw := range []string{c.Database, c.Redis.URL} {
		if u, err := url.Parse(raw); err == nil && u.User != nil {
			if p, ok := u.User.Password(); ok && p != "" {
				out = append(out, p)
			}
		}
		for _, m := range dsnPassword.FindAllStringSubmatch(raw, -1) {
			if p := strings.Trim(m[1], "'"); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// scrubHandler is a slog.Handler that removes secrets from a record's
// message and from every value (an error by its text, a group member by
// member) before the next handler writes it. A record that holds none is
// passed on as it is. It is safe for concurrent use when next is.
type scrubHandler struct {
	next slog.Handler
	s    *upstream.Scrubber
}

// scrubbing returns h wrapped so that it never writes one of secrets; h
// itself when there are none.
func scrubbing(h slog.Handler, secrets []string) slog.Handler {
	if len(secrets) == 0 {
		return h
	}
	return &scrubHandler{next: h, s: upstream.NewScrubber(secrets...)}
}

func (h *scrubHandler) Enabled(ctx context.Context, l slog.Level) bool { return h.next.Enabled(ctx, l) }

func (h *scrubHandler) Handle(ctx context.Context, r slog.Record) error {
	msg, _ := h.s.Text(r.Message)
	out := slog.NewRecord(r.Time, r.Level, msg, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(h.attr(a))
		return true
	})
	return h.next.Handle(ctx, out)
}

func (h *scrubHandler) WithAttrs(as []slog.Attr) slog.Handler {
	clean := make([]slog.Attr, len(as))
	for i, a := range as {
		clean[i] = h.attr(a)
	}
	return &scrubHandler{next: h.next.WithAttrs(clean), s: h.s}
}

func (h *scrubHandler) WithGroup(name string) slog.Handler {
	return &scrubHandler{next: h.next.WithGroup(name), s: h.s}
}

// attr returns a with every secret removed from its value.
func (h *scrubHandler) attr(a slog.Attr) slog.Attr {
	v := a.Value.Resolve()
	switch v.Kind() {
	case slog.KindString:
		if s, changed := h.s.Text(v.String()); changed {
			return slog.String(a.Key, s)
		}
	case slog.KindGroup:
		g := v.Group()
		clean := make([]slog.Attr, len(g))
		for i, m := range g {
			clean[i] = h.attr(m)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(clean...)}
	case slog.KindAny:
		var text string
		if err, ok := v.Any().(error); ok {
			text = err.Error()
		} else {
			text = fmt.Sprint(v.Any())
		}
		if s, changed := h.s.Text(text); changed {
			return slog.String(a.Key, s)
		}
	}
	return slog.Attr{Key: a.Key, Value: v}
}
