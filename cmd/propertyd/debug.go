package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"time"
)

// debugServer serves the Go runtime's profiles (net/http/pprof) for
// operators finding where time goes under load: go tool pprof
// http://ADDR/debug/pprof/profile, and the execution tracer at
// /debug/pprof/trace?seconds=N. It runs on its own listener, never on the
// API's, and on a mux of its own (the default mux is left alone), so the
// API can never answer a profile and a profile never counts against a key.
type debugServer struct {
	ln  net.Listener
	srv *http.Server
}

func serveDebug(addr string, log *slog.Logger) (*debugServer, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("debug_listen %s: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index) // the named profiles: heap, goroutine, block, mutex...
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	d := &debugServer{ln: ln, srv: &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}}
	go func() {
		if err := d.srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error("debug listener stopped", "error", err.Error())
		}
	}()
	return d, nil
}

func (d *debugServer) addr() string { return d.ln.Addr().String() }

// close stops the listener and ends profiles being taken: a CPU profile or
// trace runs for seconds and must not hold up a shutdown.
func (d *debugServer) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if d.srv.Shutdown(ctx) != nil {
		d.srv.Close()
	}
}
