package fleet

// UseCallersClock makes c's budget scripts take the time their callers
// pass in instead of reading Redis's clock, so that a test can step a budget
// through fixed instants (a second later, ten seconds later) and compare it
// with an in-process bucket at the same instants, without sleeping.
func UseCallersClock(c *Client) { c.callersClock = true }
