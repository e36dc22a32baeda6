package postgres

import (
	"context"
	"net/url"
	"regexp"

	"github.com/jackc/pgx/v5"

	"github.com/propertyd/propertyd/providers"
)

// schemaNameRE is what CreateSchema and DropSchema accept as a schema name:
// a plain lower-case identifier, so it needs no quoting in a search_path.
var schemaNameRE = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// CreateSchema creates the empty schema name in the database at dbURL and
// returns dbURL with that schema as its search_path: a database of its own
// for a test or a benchmark, which Open fills with propertyd's tables and
// DropSchema removes with everything in it, so that several of them share
// one server and leave nothing behind. Its errors are those of VersionAt
// (KindUnavailable when the server cannot be reached), and KindInvalid for a name that is not a plain lower-case identifier.
func CreateSchema(ctx context.Context, dbURL, name string) (string, error) {
	if err := checkSchemaName(name); err != nil {
		return "", err
	}
	if _, err := parseConfig(dbURL); err != nil {
		return "", err
	}
	u, err := url.Parse(dbURL)
	if err != nil {
		return "", providers.Wrap(err, providers.KindInvalid, providers.CodeInvalidConfig, "store: the database URL is not valid")
	}
	if err := execOnce(ctx, dbURL, "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
		return "", err
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// DropSchema drops the schema name, and everything in it, from the
// database at dbURL (the URL given to CreateSchema, or the one it returned).
func DropSchema(ctx context.Context, dbURL, name string) error {
	if err := checkSchemaName(name); err != nil {
		return err
	}
	return execOnce(ctx, dbURL, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE")
}

func checkSchemaName(name string) error {
	if !schemaNameRE.MatchString(name) {
		return providers.Errorf(providers.KindInvalid, providers.CodeInvalidConfig,
			"store: schema name %q is not a lower-case identifier", name)
	}
	return nil
}

// execOnce runs one statement on a connection of its own to the database
// at dbURL.
// Checkpoint makes the server at dbURL write every dirty buffer now
// (CHECKPOINT, which needs a superuser or the pg_checkpoint role): the
// starting line of a measured bulk load, which would otherwise inherit
// the checkpoint that the writes before it left due and pay for it while
// it runs.
func Checkpoint(ctx context.Context, dbURL string) error {
	return execOnce(ctx, dbURL, "CHECKPOINT")
}

func execOnce(ctx context.Context, dbURL, sql string) error {
	cfg, err := parseConfig(dbURL)
	if err != nil {
		return err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg.ConnConfig)
	if err != nil {
		return dbErr(ctx, err)
	}
	defer conn.Close(context.Background())
	_, err = conn.Exec(ctx, sql)
	return dbErr(ctx, err)
}
