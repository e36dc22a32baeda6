package postgres

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// answerBound gives every statement, batch, copy and wait for a pooled
// connection made on behalf of a request at most a fixed time for the
// server to answer, through pgx's tracer hooks, whose returned context
// pgx uses for the rest of the call. A server that hangs (a black hole:
// packets dropped, or a process that stopped answering) would otherwise
// hold each call until the request's whole deadline and be reported as
// the request timing out; bounded, the call fails with the bound's own
// deadline while the caller's context is still live, which dialect.Err
// reports as the database being unavailable (503 with Retry-After).
//
// Only calls whose context has a deadline are bounded: requests always
// have one (request_timeout), while the data commands' merges, index
// builds and copies, and the migrations at Open, run under contexts
// without one and may take minutes. The zero value bounds nothing. It is
// safe for concurrent use.
type answerBound struct{ d time.Duration }

var (
	_ pgx.QueryTracer       = answerBound{}
	_ pgx.BatchTracer       = answerBound{}
	_ pgx.CopyFromTracer    = answerBound{}
	_ pgxpool.AcquireTracer = answerBound{}
	_ pgx.PrepareTracer     = answerBound{}
)

// answerCancel is what the start of a bounded call leaves in its context
// for the end to release.
type answerCancel struct{ cancel context.CancelFunc }

type answerKey struct{}

func (b answerBound) start(ctx context.Context) context.Context {
	if b.d <= 0 {
		return ctx
	}
	if _, ok := ctx.Deadline(); !ok {
		return ctx
	}
	ctx, cancel := context.WithTimeout(ctx, b.d)
	return context.WithValue(ctx, answerKey{}, answerCancel{cancel})
}

func (answerBound) end(ctx context.Context) {
	if c, ok := ctx.Value(answerKey{}).(answerCancel); ok {
		c.cancel()
	}
}

func (b answerBound) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	return b.start(ctx)
}

func (b answerBound) TraceQueryEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryEndData) {
	b.end(ctx)
}

func (b answerBound) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	return b.start(ctx)
}

func (answerBound) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (b answerBound) TraceBatchEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchEndData) {
	b.end(ctx)
}

func (b answerBound) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	return b.start(ctx)
}

func (b answerBound) TraceCopyFromEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromEndData) {
	b.end(ctx)
}

func (b answerBound) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	return b.start(ctx)
}

func (b answerBound) TracePrepareEnd(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareEndData) {
	b.end(ctx)
}

func (b answerBound) TraceAcquireStart(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireStartData) context.Context {
	return b.start(ctx)
}

func (b answerBound) TraceAcquireEnd(ctx context.Context, _ *pgxpool.Pool, _ pgxpool.TraceAcquireEndData) {
	b.end(ctx)
}
