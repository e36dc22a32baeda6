package providers

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Kind classifies an Error for the gateway, which maps each kind to one HTTP
// status in a single table. The zero value is KindInternal.
type Kind int

// The kinds of error. Interface doc comments list which kinds a method returns.
const (
	KindInternal         Kind = iota // a bug or an unexpected failure; shown as 500 without detail
	KindInvalid                      // bad input: 400
	KindUnauthorized                 // missing or unknown API key: 401
	KindNotFound                     // no such record or no geocoder match: 404
	KindMethod                       // method not allowed on the route: 405
	KindTooLarge                     // request body too large: 413
	KindUnprocessable                // well-formed but refused input: 422
	KindRateLimited                  // over the key's budget: 429
	KindUpstream                     // an upstream answered with an error or garbage: 502
	KindUnavailable                  // an upstream is unavailable (open breaker, misconfigured): 503
	KindTimeout                      // an upstream did not answer in time: 504
	KindCanceled                     // the client went away; nothing is sent
	KindUnsupportedMedia             // a body in a media type the endpoint does not take: 415
	KindUnreachable                  // no connection to an upstream could be made (DNS, refused, TLS): 502
	KindConflict                     // the geocoder's answer does not settle the address as asked (ambiguous, inexact): 409
	KindVersion                      // a request in an HTTP version the server does not speak: 505, the client's and no failure
)

// ParamError names one invalid request parameter and what is wrong with it.
type ParamError struct {
	Parameter string `json:"parameter"`
	Message   string `json:"message"`
}

// Error is the one error type that crosses package boundaries. Code is a
// stable snake_case identifier clients may switch on, one of the Code
// constants (codes.go); Message is safe to show to a client; Err is the
// cause, kept for logs and errors.Is/As.
type Error struct {
	Kind       Kind
	Code       string
	Message    string
	Params     []ParamError
	RetryAfter time.Duration // for rate_limited and open breakers; 0 if unknown
	// Candidates are the different addresses an ambiguous_address error
	// found, in the geocoder's order; nil for every other error.
	Candidates []Candidate
	Err        error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return e.Code + ": " + e.Message + ": " + e.Err.Error()
	}
	return e.Code + ": " + e.Message
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error of the given kind and code with a formatted message.
func Errorf(kind Kind, code, format string, args ...any) *Error {
	return &Error{Kind: kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

// Wrap returns an *Error that keeps cause for logs and shows message to clients.
func Wrap(cause error, kind Kind, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message, Err: cause}
}

// Invalid returns a 400-class error naming one bad parameter.
func Invalid(param, message string) *Error {
	return InvalidParams(ParamError{Parameter: param, Message: message})
}

// InvalidParams returns one invalid_parameter error naming every bad
// parameter in errs (at least one), in order. Its message is the one form
// every invalid input reads in, whichever layer found it: "invalid
// parameter state: is required", or "invalid parameters: street: is
// required; state: must be ..." for several.
func InvalidParams(errs ...ParamError) *Error {
	var b strings.Builder
	if len(errs) == 1 {
		b.WriteString("invalid parameter ")
	} else {
		b.WriteString("invalid parameters: ")
	}
	for i, pe := range errs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(pe.Parameter)
		b.WriteString(": ")
		b.WriteString(pe.Message)
	}
	return &Error{Kind: KindInvalid, Code: CodeInvalidParameter, Message: b.String(), Params: errs}
}

// NotFound returns a 404-class error with the given code.
func NotFound(code, message string) *Error {
	return &Error{Kind: KindNotFound, Code: code, Message: message}
}

// Common errors that callers compare against with errors.Is on the Code.
var (
	// ErrNoMatch is returned by a Geocoder when the upstream found no address.
	ErrNoMatch = NotFound(CodeAddressNotFound, "the address could not be matched")
)

// As returns err as an *Error, classifying plain context errors on the way:
// a deadline becomes KindTimeout and a cancellation KindCanceled. Any other
// error becomes KindInternal with a generic message so nothing internal leaks.
func As(err error) *Error {
	if err == nil {
		return nil
	}
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	switch {
	case errors.Is(err, context.DeadlineExceeded):
		return Wrap(err, KindTimeout, CodeUpstreamTimeout, "an upstream service did not answer in time")
	case errors.Is(err, context.Canceled):
		return Wrap(err, KindCanceled, CodeCanceled, "the request was canceled")
	}
	return Wrap(err, KindInternal, CodeInternalError, "an internal error occurred")
}

// KindOf reports the Kind of err (KindInternal for foreign errors).
func KindOf(err error) Kind {
	if err == nil {
		return KindInternal
	}
	return As(err).Kind
}

// CodeOf reports the public code of err.
func CodeOf(err error) string {
	if err == nil {
		return ""
	}
	return As(err).Code
}

// Failure reports whether an error of kind k is a failure of propertyd or
// of an upstream rather than an answer about the request: an internal
// error, an upstream that failed or is unavailable, a timeout. These are
// the kinds the gateway answers with a 5xx status (but KindVersion, a
// 505 for the client's HTTP version), and a request (or a part of one)
// that ends in one is not charged to the key's budget.
func (k Kind) Failure() bool {
	switch k {
	case KindInternal, KindUpstream, KindUnreachable, KindUnavailable, KindTimeout:
		return true
	}
	return false
}

// IsFailure reports whether err should count against an upstream's health
// (circuit breaker, retries): a no-match, invalid input or a client that went
// away say nothing about the upstream and are not failures.
func IsFailure(err error) bool {
	if err == nil {
		return false
	}
	switch KindOf(err) {
	case KindNotFound, KindInvalid, KindUnprocessable, KindCanceled, KindConflict:
		return false
	}
	return true
}
