// Package ramp holds the built-in ramp plugins (linear, exponential,
// poisson), AIPerf's RampType values, one file per ramp. A ramp maps elapsed
// time to a value between start and target; the timing strategy rounds it
// into discrete +1 concurrency steps or applies it continuously to a
// request rate.
package ramp
