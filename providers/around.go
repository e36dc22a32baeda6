package providers

import "context"

// Around runs call under whatever wraps a provider module from outside: a
// circuit breaker with its per-call timeout, metrics of the call. The core
// applies it once, when a module is wired in, to every call of the module,
// without knowing what it is; a nil Around runs calls as they are. It
// returns call's error, or its own (an open breaker's KindUnavailable, a
// timeout's KindTimeout) when it did not let the call finish.
type Around func(ctx context.Context, call func(context.Context) error) error

// WrapCall returns f run under a (f itself when a is nil): the one decorator
// shape every provider call takes, whatever its key and value types.
func WrapCall[K, V any](a Around, f func(context.Context, K) (V, error)) func(context.Context, K) (V, error) {
	if a == nil {
		return f
	}
	return func(ctx context.Context, k K) (V, error) {
		var v V
		err := a(ctx, func(ctx context.Context) error {
			var err error
			v, err = f(ctx, k)
			return err
		})
		return v, err
	}
}

// GeocoderFunc is a Geocoder made of a function, such as a wrapped
// Geocode method.
type GeocoderFunc func(ctx context.Context, a Address) (Location, error)

// Geocode calls f.
func (f GeocoderFunc) Geocode(ctx context.Context, a Address) (Location, error) { return f(ctx, a) }

// ReverseGeocoderFunc is a ReverseGeocoder made of a function.
type ReverseGeocoderFunc func(ctx context.Context, p Point) (Location, error)

// Reverse calls f.
func (f ReverseGeocoderFunc) Reverse(ctx context.Context, p Point) (Location, error) {
	return f(ctx, p)
}
