//go:build !cgo || !linux

package nvml

import "errors"

// realLibrary stands in where go-nvml cannot be built (no cgo, not Linux).
func realLibrary() Library { return unavailable{} }

type unavailable struct{}

func (unavailable) Init() error {
	return errors.New("NVML is not available in this build (needs Linux and cgo); use --gpu-telemetry with DCGM exporter URLs instead")
}
func (unavailable) Shutdown() error            { return nil }
func (unavailable) DeviceCount() (int, error)  { return 0, errors.New("nvml unavailable") }
func (unavailable) Device(int) (Device, error) { return nil, errors.New("nvml unavailable") }
