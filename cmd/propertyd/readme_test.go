package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
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
