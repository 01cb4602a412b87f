// Package arrival groups the built-in arrival_pattern plugins: one
// subpackage per pattern (constant, poisson, gamma, burst), each a renewal
// process whose gaps the open-loop strategy adds to an absolute schedule.
package arrival
