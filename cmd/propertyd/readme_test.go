package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/propertyd/propertyd/store/engine"
)

// TestREADMEQuotesTheRedisLogLinesAsLogged holds the README's quotes of
// what an instance logs when Redis goes and comes back to the messages the
// fleet package logs: an operator searches the logs for the quoted text.
func TestREADMEQuotesTheRedisLogLinesAsLogged(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile(filepath.Join("..", "..", "ratelimit", "fleet", "fleet.go"))
	if err != nil {
		t.Fatal(err)
	}
	logged := map[string]bool{}
	for _, m := range regexp.MustCompile(`c\.log\.(?:Warn|Info|Error)\(\s*"([^"]+)"`).FindAllSubmatch(src, -1) {
		logged[string(m[1])] = true
	}
	text := strings.Join(strings.Fields(string(readme)), " ") // quotes may wrap
	quoted := map[string]bool{}
	for _, m := range regexp.MustCompile("`\"(redis [^\"]+)\"`").FindAllStringSubmatch(text, -1) {
		quoted[m[1]] = true
		if !logged[m[1]] {
			t.Errorf("the README quotes %q, which propertyd never logs", m[1])
		}
	}
	for msg := range logged {
		if !quoted[msg] {
			t.Errorf("propertyd logs %q, which the README does not quote", msg)
		}
	}
	if len(logged) == 0 {
		t.Fatal("no log message found in ratelimit/fleet/fleet.go: the test reads the wrong file")
	}
}

// TestREADMELayoutListsEachPartOnce: each bullet of the Layout section
// starts with a part of the tree no other bullet starts with.
func TestREADMELayoutListsEachPartOnce(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, layout, ok := strings.Cut(string(readme), "\n## Layout\n")
	if !ok {
		t.Fatal("the README has no Layout section")
	}
	layout, _, _ = strings.Cut(layout, "\n#")
	seen := map[string]bool{}
	for _, line := range strings.Split(layout, "\n") {
		if !strings.HasPrefix(line, "- ") {
			continue
		}
		if seen[line] {
			t.Errorf("the Layout section repeats a bullet: %s", line)
		}
		seen[line] = true
	}
}

// TestREADMEFirstHourCurlsWork runs each curl line of the README's "The
// first hour" against the demo, in order, with the demo key: each must be
// answered 200, so a newcomer's first commands work as written.
func TestREADMEFirstHourCurlsWork(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "\n## The first hour\n")
	if start < 0 {
		t.Fatal(`the README has no "## The first hour" section`)
	}
	section := text[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	const prefix = `curl -H "$K" "$B`
	var paths []string
	for _, line := range strings.Split(section, "\n") {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(line), prefix); ok {
			path, _, ok := strings.Cut(rest, `"`)
			if !ok {
				t.Fatalf("a curl line of the first hour does not close its URL: %s", line)
			}
			paths = append(paths, path)
		}
	}
	if len(paths) < 5 {
		t.Fatalf("the first hour has %d curl lines of the form %s...: %q", len(paths), prefix, paths)
	}
	m, _, _ := startDemo(t)
	for _, path := range paths {
		req, _ := http.NewRequest(http.MethodGet, "http://"+m.Addr()+path, nil)
		req.Header.Set("X-API-Key", demoKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("the README's first hour: GET %s answered %d: %s", path, resp.StatusCode, body)
		}
	}
}

// TestREADMEShowsTheNewestSchemaVersion: the migrate command's example
// output in the README names the schema version a new database gets.
func TestREADMEShowsTheNewestSchemaVersion(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "p.db")
	db, err := engine.Open(context.Background(), path, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	db.Close()
	v, _ := engine.Version(context.Background(), path)
	want := fmt.Sprintf("`created data/propertyd.db: schema version %d`", v)
	if !strings.Contains(string(readme), want) {
		t.Errorf("the README's migrate example does not say %s", want)
	}
	if !strings.Contains(string(readme), fmt.Sprintf("schema version %d -> %d", v-1, v)) {
		t.Errorf("the README's migrate example does not show the step to schema version %d", v)
	}
}

// TestREADMEContentsListsEverySection: the contents list names every
// section and subsection after it, in order, each by the anchor a
// Markdown renderer makes of its title.
func TestREADMEContentsListsEverySection(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(readme)
	start := strings.Index(text, "\n## Contents\n")
	if start < 0 {
		t.Fatal(`the README has no "## Contents"`)
	}
	body := text[start+len("\n## Contents\n"):]
	end := strings.Index(body, "\n## ")
	list, rest := body[:end], body[end:]
	entry := regexp.MustCompile(`(?m)^( *)- \[(.+)\]\(#([^)]+)\)$`)
	var got []string
	for _, m := range entry.FindAllStringSubmatch(list, -1) {
		got = append(got, m[1]+m[3])
	}
	heading := regexp.MustCompile("(?m)^(##+) (.+)$")
	inCode := false
	var want []string
	for _, line := range strings.Split(rest, "\n") {
		if strings.HasPrefix(line, "```") {
			inCode = !inCode
		}
		m := heading.FindStringSubmatch(line)
		if inCode || m == nil || len(m[1]) > 3 {
			continue
		}
		indent := strings.Repeat("  ", len(m[1])-2)
		want = append(want, indent+anchorOf(m[2]))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the contents list:\n%s\nthe sections, as anchors:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// anchorOf is the anchor GitHub makes of a heading: lower case, spaces as
// hyphens, punctuation but hyphens and underscores dropped.
func anchorOf(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || ('a' <= r && r <= 'z') || ('0' <= r && r <= '9'):
			b.WriteRune(r)
		}
	}
	return b.String()
}
