// Command badimport is a test guest importing a host function outside WASI:
// the loader must refuse it.
package main

import (
	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugin-sdk/wasmguest"
)

//go:wasmimport env host_secret
func hostSecret() uint32

type guest struct{}

func (guest) Init(sdk.RunInfo) error { return nil }

func (guest) Process(*sdk.ParsedRecord) (*sdk.RecordMetrics, error) {
	return &sdk.RecordMetrics{Values: map[string]sdk.MetricValue{"secret": {Scalar: float64(hostSecret())}}}, nil
}

func init() { wasmguest.Register(guest{}) }

func main() {}
