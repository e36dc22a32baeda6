package main

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gofiber/fiber/v2"
)

// serveBare is the physical baseline: a Fiber app on its own (this binary
// re-executed with -serve-bare, so it has a process and GOMAXPROCS of its
// own, as propertyd does) that answers GET /NAME with the bytes of the file
// NAME.json in dir, as application/json, doing no other work. The bytes are
// propertyd's own answers to the scenarios, so both send the same bodies.
func serveBare(addr, dir string) error {
	app, err := bareApp(dir)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("bare fiber listening on http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		app.Shutdown() //nolint:errcheck // exiting anyway
	}()
	return app.Listener(ln)
}

// bareApp is the baseline's Fiber app serving the bodies in dir.
func bareApp(dir string) (*fiber.App, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	bodies := map[string][]byte{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		bodies[strings.TrimSuffix(filepath.Base(f), ".json")] = b
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/:name", func(c *fiber.Ctx) error {
		b, ok := bodies[c.Params("name")]
		if !ok {
			return fiber.ErrNotFound
		}
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		return c.Send(b)
	})
	return app, nil
}
