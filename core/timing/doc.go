// Package timing holds the scheduling primitives shared by the timing
// strategies: a Pacer that sleeps to absolute perf-clock deadlines with
// sub-millisecond precision, a resizable Limiter for concurrency ceilings
// that ramps can raise, ramp drivers, and Phase, which enforces a phase's
// stop conditions (count, duration, grace period, cancellation) and tracks
// the sends in flight.
package timing
