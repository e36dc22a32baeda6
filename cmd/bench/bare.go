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
	"github.com/valyala/fasthttp"
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

// serveBareFasthttp is the baseline below Fiber: a fasthttp server on its
// own (this binary re-executed with -serve-bare-fasthttp) answering GET
// /NAME with the bytes of NAME.json in dir, as serveBare does. propertyd
// answers its plain warm GET in front of the Fiber app, with fasthttp
// alone, so bare Fiber is not the fastest server of those bytes on
// propertyd's stack: this one is. It runs fasthttp as Fiber configures it
// (no Server header, Fiber's concurrency limit), so that the two baselines
// differ only by Fiber.
func serveBareFasthttp(addr, dir string) error {
	srv, err := bareFasthttpServer(dir)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	fmt.Printf("bare fasthttp listening on http://%s\n", ln.Addr())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() {
		<-ctx.Done()
		srv.Shutdown() //nolint:errcheck // exiting anyway
	}()
	return srv.Serve(ln)
}

// bareFasthttpServer is the fasthttp baseline's server serving the bodies in dir.
func bareFasthttpServer(dir string) (*fasthttp.Server, error) {
	bodies, err := readBodies(dir)
	if err != nil {
		return nil, err
	}
	return &fasthttp.Server{
		Handler: func(c *fasthttp.RequestCtx) {
			b, ok := bodies[string(c.Path()[1:])]
			if !ok || !c.IsGet() {
				c.Error(fiber.ErrNotFound.Message, fasthttp.StatusNotFound)
				return
			}
			c.SetContentType(fiber.MIMEApplicationJSON)
			c.SetBody(b)
		},
		NoDefaultServerHeader: true,
		Concurrency:           fiber.DefaultConcurrency,
	}, nil
}

// readBodies reads the baselines' bodies: NAME.json in dir is the answer
// to GET /NAME.
func readBodies(dir string) (map[string][]byte, error) {
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
	return bodies, nil
}

// bareApp is the baseline's Fiber app serving the bodies in dir.
func bareApp(dir string) (*fiber.App, error) {
	bodies, err := readBodies(dir)
	if err != nil {
		return nil, err
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
