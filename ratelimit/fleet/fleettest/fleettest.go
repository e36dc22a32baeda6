// Package fleettest gives tests a Redis of their own: a key prefix no other
// test uses, whose keys are deleted when the test ends, and a relay to cut
// and restore the connection to Redis. It is the fleet package's test kit,
// the one package besides fleet that uses the Redis client, and only tests
// import it.
//
// Tests find the server through PROPERTYD_TEST_REDIS, e.g.
// redis://127.0.0.1:6379/0; without it they skip, saying how to run them.
package fleettest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Env names the environment variable that points tests at a Redis server
// they may write keys to (under prefixes of their own).
const Env = "PROPERTYD_TEST_REDIS"

// URL returns the test server's URL, or skips the test saying how to run it.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(Env)
	if u == "" {
		t.Skipf("no Redis to test against: set %s, e.g. %s=redis://127.0.0.1:6379/0 (.ci/run starts one)", Env, Env)
	}
	return u
}

// Prefix returns a key prefix of the test's own and deletes every key under
// it when the test ends: tests run in parallel on one Redis and leave
// nothing behind. It skips the test when no server is configured.
func Prefix(t testing.TB) string {
	t.Helper()
	u := URL(t)
	b := make([]byte, 6)
	rand.Read(b)
	prefix := "propertyd-test-" + hex.EncodeToString(b) + ":"
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		n, err := Clear(ctx, u, prefix)
		if err != nil {
			t.Errorf("deleting the test's %d Redis keys under %s: %v", n, prefix, err)
		}
	})
	return prefix
}

// Keys returns the Redis keys under prefix at the server of u.
func Keys(t testing.TB, u, prefix string) []string {
	t.Helper()
	rdb := client(t, u)
	defer rdb.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	keys, err := rdb.Keys(ctx, prefix+"*").Result()
	if err != nil {
		t.Fatalf("listing Redis keys under %s: %v", prefix, err)
	}
	return keys
}

// Clear deletes every key under prefix at the server of u and returns how
// many there were.
func Clear(ctx context.Context, u, prefix string) (int, error) {
	o, err := redis.ParseURL(u)
	if err != nil {
		return 0, err
	}
	rdb := redis.NewClient(o)
	defer rdb.Close()
	keys, err := rdb.Keys(ctx, prefix+"*").Result()
	if err != nil || len(keys) == 0 {
		return len(keys), err
	}
	return len(keys), rdb.Del(ctx, keys...).Err()
}

func client(t testing.TB, u string) *redis.Client {
	t.Helper()
	o, err := redis.ParseURL(u)
	if err != nil {
		t.Fatalf("%s is not a Redis URL: %v", Env, err)
	}
	return redis.NewClient(o)
}

// Clock returns a reading of the clock of the Redis server at u, which the
// fleet's scripts read: a test takes one before and one after what it
// asks, and bounds what Redis may have granted in between. The connection
// it keeps is closed when the test ends.
func Clock(t testing.TB, u string) func() time.Time {
	t.Helper()
	rdb := client(t, u)
	t.Cleanup(func() { rdb.Close() })
	return func() time.Time {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		now, err := rdb.Time(ctx).Result()
		if err != nil {
			t.Fatalf("reading Redis's clock: %v", err)
		}
		return now
	}
}
