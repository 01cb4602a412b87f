// Command benchreport prints one line of a make-bench table from an aiperf
// profile_export_aiperf.json: achieved rate against a target and the
// schedule lag percentiles (how late requests left their schedule).
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
)

type stat struct {
	Avg *float64 `json:"avg"`
	P50 *float64 `json:"p50"`
	P99 *float64 `json:"p99"`
	Max *float64 `json:"max"`
}

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: benchreport NAME TARGET_RATE profile_export_aiperf.json")
		os.Exit(2)
	}
	target, err := strconv.ParseFloat(os.Args[2], 64)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport: target rate:", err)
		os.Exit(2)
	}
	b, err := os.ReadFile(os.Args[3])
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchreport:", err)
		os.Exit(1)
	}
	var doc map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		fmt.Fprintf(os.Stderr, "benchreport: %s: %v\n", os.Args[3], err)
		os.Exit(1)
	}
	get := func(tag string) stat {
		var s stat
		_ = json.Unmarshal(doc[tag], &s)
		return s
	}
	val := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprintf("%.3f", *p)
	}
	rt, lag := get("request_throughput"), get("schedule_lag")
	achieved := "-"
	if rt.Avg != nil && target > 0 {
		achieved = fmt.Sprintf("%.1f (%+.2f%%)", *rt.Avg, (*rt.Avg/target-1)*100)
	} else if rt.Avg != nil {
		achieved = fmt.Sprintf("%.1f", *rt.Avg)
	}
	fmt.Printf("%-26s %10s %22s %10s %10s %10s\n", os.Args[1], os.Args[2], achieved, val(lag.P50), val(lag.P99), val(lag.Max))
}
