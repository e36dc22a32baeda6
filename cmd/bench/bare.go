package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// serveBare is the physical baseline: a Fiber app on its own (this binary
// re-executed with -serve-bare, so it has a process and GOMAXPROCS of its
// own, as propertyd does) that answers GET /NAME with the bytes of the file
// NAME.json in dir, as application/json, doing no other work. The bytes are
// propertyd's own answers to the scenarios, so both send the same bodies.
func serveBare(addr, dir string, t timeouts) error {
	app, err := bareApp(dir, t)
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
func serveBareFasthttp(addr, dir string, t timeouts) error {
	srv, err := bareFasthttpServer(dir, t)
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

// bareFasthttpServer is the fasthttp baseline's server sending the
// answers in dir, with the timeouts t.
func bareFasthttpServer(dir string, t timeouts) (*fasthttp.Server, error) {
	answers, err := readAnswers(dir)
	if err != nil {
		return nil, err
	}
	return &fasthttp.Server{
		Handler: func(c *fasthttp.RequestCtx) {
			a, ok := answers[string(c.Path()[1:])]
			if !ok || !c.IsGet() {
				c.Error(fiber.ErrNotFound.Message, fasthttp.StatusNotFound)
				return
			}
			c.SetContentType(fiber.MIMEApplicationJSON)
			for _, h := range a.headers {
				c.Response.Header.SetCanonical(h.name, h.value)
			}
			c.SetBody(a.body)
		},
		NoDefaultServerHeader: true,
		Concurrency:           fiber.DefaultConcurrency,
		ReadTimeout:           t.io,
		WriteTimeout:          t.io,
		IdleTimeout:           t.idle,
	}, nil
}

// answer is what a baseline sends to GET /NAME: propertyd's own answer,
// its body (NAME.json in the folder) and, where kept, the headers it
// sent with it (NAME.headers), names spelled as sent. So the baseline
// sends the bytes propertyd sends, headers included, and does nothing
// else. It sets the headers the fastest way fasthttp has, as propertyd
// does: SetCanonical, which takes the name as it is (Set, which
// normalizes it and checks the value for newlines, cost the six headers
// some 3,000 instructions more under callgrind).
type answer struct {
	body    []byte
	headers []header
}

type header struct{ name, value []byte }

// readAnswers reads the baselines' answers in dir (see answer).
func readAnswers(dir string) (map[string]answer, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	answers := map[string]answer{}
	for _, f := range files {
		var a answer
		if a.body, err = os.ReadFile(f); err != nil {
			return nil, err
		}
		text, err := os.ReadFile(strings.TrimSuffix(f, ".json") + ".headers")
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(text)), "\n") {
			if name, value, ok := strings.Cut(line, ": "); ok {
				a.headers = append(a.headers, header{[]byte(name), []byte(value)})
			}
		}
		answers[strings.TrimSuffix(filepath.Base(f), ".json")] = a
	}
	return answers, nil
}

// sentHeaders are the headers of an answer the baselines send too (see
// answer): all but those the server sets itself for any answer.
func sentHeaders(h *fasthttp.ResponseHeader) string {
	var b strings.Builder
	h.VisitAll(func(k, v []byte) {
		switch string(k) {
		case fasthttp.HeaderDate, fasthttp.HeaderContentLength, fasthttp.HeaderContentType,
			fasthttp.HeaderServer, fasthttp.HeaderConnection, fasthttp.HeaderTransferEncoding:
			return
		}
		fmt.Fprintf(&b, "%s: %s\n", k, v)
	})
	return b.String()
}

// keepAnswer keeps the body and headers of an answer under name in dir,
// for the baselines to send (see answer).
func keepAnswer(dir, name string, body []byte, headers string) error {
	if err := os.WriteFile(filepath.Join(dir, name+".json"), body, 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, name+".headers"), []byte(headers), 0o644)
}

// timeouts are a baseline server's read and write timeout (io) and its
// keep-alive idle timeout; zero, none (fasthttp's default). The
// instructions row counts a bare Fiber with propertyd's too
// (gateway.ServerTimeouts of the bench's request_timeout), beside the
// verdict's, which has none.
type timeouts struct{ io, idle time.Duration }

// bareApp is the baseline's Fiber app sending the answers in dir, with
// the timeouts t.
func bareApp(dir string, t timeouts) (*fiber.App, error) {
	answers, err := readAnswers(dir)
	if err != nil {
		return nil, err
	}
	app := fiber.New(fiber.Config{DisableStartupMessage: true, ReadTimeout: t.io, WriteTimeout: t.io, IdleTimeout: t.idle})
	app.Get("/:name", func(c *fiber.Ctx) error {
		a, ok := answers[c.Params("name")]
		if !ok {
			return fiber.ErrNotFound
		}
		c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
		for _, h := range a.headers {
			c.Response().Header.SetCanonical(h.name, h.value)
		}
		return c.Send(a.body)
	})
	return app, nil
}
