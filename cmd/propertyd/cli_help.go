package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
)

// commandHelp is what --help prints for one command: how to call it and
// what it does. The flags are listed after it from the command's FlagSet.
type commandHelp struct {
	usage string // after "usage: propertyd "
	about string
}

// helps holds the help of every command, by FlagSet name.
var helps = map[string]commandHelp{
	"serve": {"serve [-config PATH]", `Run the API server until SIGINT or SIGTERM, then finish in-flight requests
and close the database cleanly. This is the default command.

A start that fails part way (the database cannot be opened, the address is
in use) closes what it opened and prints the cause.

exit codes: 0 stopped cleanly, 1 runtime failure, 2 usage, 3 invalid config
(anything check-config reports)`},
	"check-config": {"check-config [-config PATH]", `Validate the configuration file (every field, every module name and option,
without calling any upstream) and print the effective settings with the
defaults applied. A file with mistakes gets every one in one run, each with
the field's path and its line. Secrets are masked: key hashes are shown truncated, module
options whose name contains key, token, secret or password are masked,
passwords in URLs (base_url, redis.url) are masked, and keys given through
key_env show the variable's name, never its value.

exit codes: 0 valid, 2 usage, 3 invalid (the message names the field)`},
	"keys": {"keys new -name NAME [-rate R] [-burst B] [-config PATH]", `Manage API keys. Subcommands:

  new   generate a key and print its config.yaml entry

Run 'propertyd keys new --help' for its flags.`},
	"keys new": {"keys new -name NAME [-rate R] [-burst B] [-config PATH]", `Generate a strong random API key, print it once, and print the config.yaml
entry that holds only its SHA-256, ready to paste under keys:. The key itself
is never stored: keep it in a secret manager now.

The configuration is read as every command reads it: -config, else
$PROPERTYD_CONFIG, else config.yaml in the current folder when there is
one; the name must not be taken there. The burst must cover one lookup
with every section: at least 1 + the number of sections the configuration
serves, else (no configuration file) at least 6 (1 + all five sections).

exit codes: 0 ok, 2 usage (bad or duplicate name, bad rate or burst),
3 invalid config`},
	"version": {"version", `Print the version of propertyd, the commit it was built from and that
commit's date, and the Go release, as go build stamps them in a git
checkout (make build does); "unknown" where the build has none (go run,
a tree outside git). Same as propertyd --version.

exit codes: 0 ok, 2 usage`},
	"migrate": {"migrate [-config PATH] [-database FILE|URL]", `Open the database (a SQLite file, created with its folder when missing, or
a postgres:// URL of an existing PostgreSQL database), apply the schema
migrations it lacks, print its schema version and exit. Run it before
starting a new version of propertyd, or to create an empty database. With
-database the configuration file is not read.

exit codes: 0 ok, 1 failure (including a database written by a newer
propertyd), 2 usage, 3 invalid config`},
	"copy": {"copy -from FILE|URL -to FILE|URL", `Copy every record (with its id, canonical address and lookup keys) and
every cached section value from one database to another, each a SQLite file
or a postgres:// URL, migrating both first: for instance from the SQLite file
of a single instance to the PostgreSQL database a fleet will share. Records
already in the destination (the same id, or the same address) and keys that
already resolve are left alone, and a section value replaces only an older
one, so running it again changes nothing and an interrupted copy can simply
be run again. Run it before the instances start writing to the destination.
The assessor datasets' rows and the OpenStreetMap extracts are not copied
(records keep their facts): the copy names each one to load again on the
destination. A progress bar is drawn on a terminal. No configuration file
is read.

exit codes: 0 ok, 1 failure (a database cannot be opened or written), 2 usage`},
	"data": {"data load acs|%s ... | data status [-config PATH]", `Manage the data propertyd keeps. Subcommands:

  load acs       store the ACS figures of every tract of some states ahead of
                 time, so that lookups there make no ACS call
%s  status         list every dataset loaded, in one table, then each kind's
                 details

Run 'propertyd data load acs --help' (or %s, status) for
its flags.`},
	"data load": {"data load acs|%s ...", `Load a public dataset into the database ahead of the lookups that need it.
Datasets:

  acs         the ACS figures (demographics, housing) of every tract of some states
%s
Run 'propertyd data load acs --help' (or %s) for its flags.`},
	"data status": {"data status [-config PATH]", `List every dataset loaded from files, of every kind (assessor datasets,
OpenStreetMap extracts, boundaries, flood maps), in one table: its rows,
failures, vintage, load time, the time its load took, its coverage and its
failures file; then the operator's import and the ACS states beside them.
Then the assessor datasets loaded (their source, precedence, rows kept,
rows matched to records when loaded, rows failed, as-of date and load time),
the OpenStreetMap extracts loaded (their data date, places, buildings,
addresses, features skipped, load time, and whether a polygon or their
bounding box is their coverage) and, for each section loaded by state, the
ACS states stored with their vintage.

exit codes: 0 ok, 1 failure (database), 2 usage, 3 invalid config`},
	"data load acs": {"data load acs [-states CA,TX|all] [-config PATH]", `Store the demographics and housing figures of every census tract of the
listed states (default all: the 50 states, DC and Puerto Rico) in the
database, one census ACS call per state and table set (about 104 for the
country), through the configured modules with their retries and outbound
rate limits. Lookups in those states then make no ACS call until the
values expire (the modules' ttl) or a newer ACS release is published. A
state loaded within its TTL is not asked again, so running it twice
changes nothing and an interrupted load is finished by running it again.
A progress bar is drawn on a terminal; what was stored goes to stdout.

exit codes: 0 ok, 1 failure (database, upstream), 2 usage (a bad -states
value: nothing is loaded), 3 invalid config or no ACS module configured`},
	"import": {"import [-config PATH] [-failures FILE] [-batch-timeout D] [-match best|strict] FILE.csv", `Bulk-load addresses and their attributes from a CSV file into the database,
geocoding new addresses through the geocoder's batch endpoint (one call per
10,000 rows). The first row names the columns, in any order, case-insensitive:

  street         required; may hold the unit ("12 Elm St Apt 4")
  state          required; USPS code or name
  city, zip      optional; zip is 5 digits or ZIP+4
  unit           optional; the secondary unit ("Apt 4B", "4B")
  bedrooms, bathrooms, living_area_sqft, lot_sqft, year_built, stories, units
                 optional facts, within the bounds the README lists
                 (bathrooms and stories may be halves: 2.5)
  property_type  optional; single_family, multi_family, condo, townhouse,
                 mobile_home or other
  reason         ignored, so a failures file can be fixed and imported again

Any other column is an error. An empty attribute leaves the stored value
unchanged. Re-running an import creates no duplicates: rows whose address is
already in the database are not geocoded again and only their attributes
are updated. An address the geocoder matches to several different
addresses fails with them in its reason, unless -match best takes the first;
-match strict fails every row the geocoder matched other than exactly, as a
lookup's match= does. Bad rows never stop the run; they are written with
the reason to the failures file, which is rewritten on every run. A progress bar is
shown when stderr is a terminal; the summary goes to stdout.

exit codes: 0 every row imported, 4 some rows failed (see the failures
file), 1 runtime failure (database, geocoder unreachable), 2 usage or an
unreadable file or header, 3 invalid config`},
}

// newFlags returns a FlagSet for the named command that reports nothing on
// its own: parseFlags prints help and errors where they belong.
func newFlags(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return fs
}

// parseFlags parses args into fs, flags and arguments in any order
// (import -config x.yaml homes.csv and import homes.csv -config x.yaml are
// the same; after "--" everything is an argument); fs.Args() then holds the
// arguments. --help prints the command's help on stdout (exit 0); a bad
// flag prints the error and the help on stderr (exit 2). When ok is false
// the command returns code at once.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	err := parseInterspersed(fs, args)
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		printHelp(stdout, fs)
		return exitOK, false
	default:
		return usageError(fs, stderr, "%v", err), false
	}
}

// parseInterspersed is fs.Parse for flags that may follow arguments: the
// standard package stops at the first argument, so the rest of the line
// after each argument is parsed again. fs.Args() ends up holding every
// argument, in order.
func parseInterspersed(fs *flag.FlagSet, args []string) error {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			return err
		}
		rest := fs.Args()
		if n := len(args) - len(rest); n > 0 && args[n-1] == "--" || len(rest) == 0 {
			positional = append(positional, rest...)
			break
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
	// A "--" first leaves every flag as set and fs.Args() as positional.
	return fs.Parse(append([]string{"--"}, positional...))
}

// subcommand is one of the words a group command (keys, data, data load)
// dispatches on, and what runs it with the rest of the line.
type subcommand struct {
	name string
	run  func(args []string) int
}

// group is a command made only of subcommands: its name (the key of its
// help), what its subcommands are called in messages ("subcommand",
// "dataset"), and the subcommands.
type group struct {
	name, word string
	subs       []subcommand
}

// dispatch serves the group's command line. The subcommand is the first
// argument naming one, wherever the flags stand (data load -config x.yaml
// acs, data load acs -config x.yaml); everything else goes to it. --help
// before it prints this level's help; no subcommand, or an unknown word, is
// a usage error that lists them.
func (g group) dispatch(args []string, stdout, stderr io.Writer) int {
	fs := newFlags(g.name)
	for i, a := range args {
		if isHelpFlag(a) {
			printHelp(stdout, fs)
			return exitOK
		}
		for _, sub := range g.subs {
			if a == sub.name {
				rest := append(append([]string(nil), args[:i]...), args[i+1:]...)
				return sub.run(rest)
			}
		}
	}
	names := make([]string, len(g.subs))
	for i, sub := range g.subs {
		names[i] = sub.name
	}
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return usageError(fs, stderr, "missing %s (%s)", g.word, strings.Join(names, ", "))
	}
	return usageError(fs, stderr, "unknown %s %q (want %s)", g.word, args[0], strings.Join(names, ", "))
}

// isHelpFlag reports whether a is one of the spellings of --help the flag
// package accepts.
func isHelpFlag(a string) bool {
	switch a {
	case "-h", "-help", "--h", "--help":
		return true
	}
	return false
}

// usageError reports a command line mistake with the command's help and
// returns the usage exit code.
func usageError(fs *flag.FlagSet, stderr io.Writer, format string, args ...any) int {
	fmt.Fprintf(stderr, "propertyd %s: %s\n\n", fs.Name(), fmt.Sprintf(format, args...))
	printHelp(stderr, fs)
	return exitUsage
}

// printHelp writes the help of fs's command and its flags.
func printHelp(w io.Writer, fs *flag.FlagSet) {
	h := helps[fs.Name()]
	fmt.Fprintf(w, "usage: propertyd %s\n\n%s\n", h.usage, strings.TrimSpace(h.about))
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprintln(w, "\nflags:")
		fs.SetOutput(w)
		fs.PrintDefaults()
		fs.SetOutput(io.Discard)
	}
}

// help serves "propertyd help [command...]": the overview, or the help of
// one command, exactly as that command's --help prints it.
func help(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		usage(stdout)
		return exitOK
	}
	if _, ok := helps[strings.Join(args, " ")]; !ok {
		fmt.Fprintf(stderr, "propertyd help: unknown command %q\n", strings.Join(args, " "))
		usage(stderr)
		return exitUsage
	}
	return run(append(append([]string(nil), args...), "-help"), stdout, stderr)
}
