package gateway

import (
	"context"
	"sync/atomic"
	"time"
)

// deadlineCtx is context.WithDeadline armed on first use. Most requests are
// answered from memory and never wait on anything, yet WithTimeout starts a
// runtime timer and makes four allocations for each of them (5% of a warm
// GET). deadlineCtx reports its deadline at once and starts the real timer
// only when something first asks for Done or Err, as an upstream call, a
// database query or a derived context does.
type deadlineCtx struct {
	context.Context // the parent, which holds the request's values
	deadline        time.Time

	// armed is nil until the first use or the release, whichever comes
	// first: then the armed context, or released. It is set once, by
	// compare-and-swap (a mutex here cost a warm GET as much as its
	// authentication's hash).
	armed atomic.Pointer[armedCtx]
}

type armedCtx struct {
	ctx    context.Context
	cancel context.CancelFunc
}

// released stands in for the armed context of a deadlineCtx released before
// anything used it.
var released = func() *armedCtx {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return &armedCtx{ctx: ctx, cancel: cancel}
}()

func (c *deadlineCtx) arm() context.Context {
	if a := c.armed.Load(); a != nil {
		return a.ctx
	}
	ctx, cancel := context.WithDeadline(c.Context, c.deadline)
	if c.armed.CompareAndSwap(nil, &armedCtx{ctx: ctx, cancel: cancel}) {
		return ctx
	}
	// Armed by another goroutine, or released, meanwhile: use that.
	cancel()
	return c.armed.Load().ctx
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }
func (c *deadlineCtx) Done() <-chan struct{}       { return c.arm().Done() }
func (c *deadlineCtx) Err() error                  { return c.arm().Err() }

// Value answers from the armed context once there is one, so that a context
// derived from c (context.WithCancel and kin) finds the armed one's cancel
// machinery and hooks into it instead of starting a goroutine to watch Done.
func (c *deadlineCtx) Value(key any) any {
	if a := c.armed.Load(); a != nil && a != released {
		return a.ctx.Value(key)
	}
	return c.Context.Value(key)
}

// release ends c once its request is answered, as WithTimeout's cancel
// does: from then on it reports context.Canceled (or DeadlineExceeded if
// that came first), and an armed timer is stopped. Safe to call twice.
func (c *deadlineCtx) release() {
	if c.armed.CompareAndSwap(nil, released) {
		return
	}
	c.armed.Load().cancel()
}
