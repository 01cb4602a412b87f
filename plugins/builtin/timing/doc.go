// Package timing holds the built-in timing strategies (category
// timing_strategy), one file each: concurrency (closed loop), request_rate
// (open loop on an arrival pattern), fixed_schedule (trace replay) and
// user_centric_rate (virtual users on a per-user gap).
//
// The scheduling primitives they share live beside them, unexported, since
// nothing else schedules credits: a pacer that sleeps to absolute perf-clock
// deadlines with sub-millisecond precision, a resizable limiter for
// concurrency ceilings that ramps can raise, ramp drivers, and the phase,
// which enforces a phase's stop conditions (count, duration, grace period,
// cancellation) and tracks the sends in flight.
package timing
