//go:build cgo && linux

package nvml

import (
	"errors"
	"fmt"
	"strings"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

// realLibrary is NVML through go-nvml, which dlopens libnvidia-ml.so.1 at
// Init: the binary builds and starts without a driver.
func realLibrary() Library { return goNVML{} }

type goNVML struct{}

func nvmlErr(op string, r gonvml.Return) error {
	if r == gonvml.SUCCESS {
		return nil
	}
	return fmt.Errorf("%s: %s", op, gonvml.ErrorString(r))
}

func (goNVML) Init() error {
	r := gonvml.Init()
	if r == gonvml.ERROR_LIBRARY_NOT_FOUND {
		return errors.New("NVML library (libnvidia-ml.so.1) not found: no NVIDIA driver on this machine; use --gpu-telemetry with DCGM exporter URLs instead")
	}
	return nvmlErr("init", r)
}

func (goNVML) Shutdown() error { return nvmlErr("shutdown", gonvml.Shutdown()) }

func (goNVML) DeviceCount() (int, error) {
	n, r := gonvml.DeviceGetCount()
	return n, nvmlErr("device count", r)
}

func (goNVML) Device(i int) (Device, error) {
	h, r := gonvml.DeviceGetHandleByIndex(i)
	if err := nvmlErr("device handle", r); err != nil {
		return nil, err
	}
	d := &goDevice{h: h}
	d.initGPM()
	return d, nil
}

type goDevice struct {
	h gonvml.Device
	// gpm holds two GPM samples (previous, current) when the GPU supports
	// GPM, so SM utilization is the device-level figure between samples.
	gpm *[2]gonvml.GpmSample
}

func (d *goDevice) initGPM() {
	sup, r := d.h.GpmQueryDeviceSupport()
	if r != gonvml.SUCCESS || sup.IsSupportedDevice == 0 {
		return
	}
	a, r1 := gonvml.GpmSampleAlloc()
	b, r2 := gonvml.GpmSampleAlloc()
	if r1 != gonvml.SUCCESS || r2 != gonvml.SUCCESS {
		if r1 == gonvml.SUCCESS {
			_ = a.Free()
		}
		if r2 == gonvml.SUCCESS {
			_ = b.Free()
		}
		return
	}
	// A first sample, so the first collection has a delta.
	if a.Get(d.h) != gonvml.SUCCESS {
		_, _ = a.Free(), b.Free()
		return
	}
	d.gpm = &[2]gonvml.GpmSample{a, b}
}

// Free releases the GPM samples (called before Shutdown).
func (d *goDevice) Free() {
	if d.gpm != nil {
		_, _ = d.gpm[0].Free(), d.gpm[1].Free()
		d.gpm = nil
	}
}

func (d *goDevice) UUID() (string, error) {
	s, r := d.h.GetUUID()
	return s, nvmlErr("uuid", r)
}

func (d *goDevice) Name() (string, error) {
	s, r := d.h.GetName()
	return s, nvmlErr("name", r)
}

func (d *goDevice) PCIBusID() (string, error) {
	p, r := d.h.GetPciInfo()
	if err := nvmlErr("pci info", r); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, c := range p.BusId {
		if c == 0 {
			break
		}
		b.WriteByte(byte(c))
	}
	return b.String(), nil
}

func (d *goDevice) PowerUsageMilliwatts() (uint32, error) {
	v, r := d.h.GetPowerUsage()
	return v, nvmlErr("power usage", r)
}

func (d *goDevice) TotalEnergyMillijoules() (uint64, error) {
	v, r := d.h.GetTotalEnergyConsumption()
	return v, nvmlErr("total energy", r)
}

func (d *goDevice) UtilizationRates() (uint32, uint32, error) {
	u, r := d.h.GetUtilizationRates()
	return u.Gpu, u.Memory, nvmlErr("utilization", r)
}

func (d *goDevice) MemoryUsedBytes() (uint64, error) {
	m, r := d.h.GetMemoryInfo()
	return m.Used, nvmlErr("memory info", r)
}

func (d *goDevice) TemperatureC() (uint32, error) {
	v, r := d.h.GetTemperature(gonvml.TEMPERATURE_GPU)
	return v, nvmlErr("temperature", r)
}

func (d *goDevice) DecoderUtilization() (uint32, error) {
	v, _, r := d.h.GetDecoderUtilization()
	return v, nvmlErr("decoder utilization", r)
}

func (d *goDevice) EncoderUtilization() (uint32, error) {
	v, _, r := d.h.GetEncoderUtilization()
	return v, nvmlErr("encoder utilization", r)
}

func (d *goDevice) JpgUtilization() (uint32, error) {
	v, _, r := d.h.GetJpgUtilization()
	return v, nvmlErr("jpg utilization", r)
}

func (d *goDevice) SMUtilization() (float64, error) {
	if d.gpm != nil {
		if v, err := d.gpmSMUtil(); err == nil {
			return v, nil
		}
	}
	// Fallback: the processes' SM utilization summed (0 with none), as
	// AIPerf's process API fallback.
	samples, r := d.h.GetProcessUtilization(0)
	if r == gonvml.ERROR_NOT_FOUND {
		return 0, nil
	}
	if err := nvmlErr("process utilization", r); err != nil {
		return 0, err
	}
	sum := 0.0
	for _, s := range samples {
		sum += float64(s.SmUtil)
	}
	return sum, nil
}

func (d *goDevice) gpmSMUtil() (float64, error) {
	prev, cur := d.gpm[0], d.gpm[1]
	// Swap whatever happens, as AIPerf does, so the next call pairs with
	// the latest sample.
	defer func() { d.gpm[0], d.gpm[1] = cur, prev }()
	if err := nvmlErr("gpm sample", cur.Get(d.h)); err != nil {
		return 0, err
	}
	mg := gonvml.GpmMetricsGetType{NumMetrics: 1, Sample1: prev, Sample2: cur}
	mg.Metrics[0].MetricId = uint32(gonvml.GPM_METRIC_SM_UTIL)
	if err := nvmlErr("gpm metrics", gonvml.GpmMetricsGet(&mg)); err != nil {
		return 0, err
	}
	if mg.Metrics[0].NvmlReturn != uint32(gonvml.SUCCESS) {
		return 0, nvmlErr("gpm sm util", gonvml.Return(mg.Metrics[0].NvmlReturn))
	}
	return mg.Metrics[0].Value, nil
}

func (d *goDevice) PowerViolationNs() (uint64, error) {
	v, r := d.h.GetViolationStatus(gonvml.PERF_POLICY_POWER)
	return v.ViolationTime, nvmlErr("violation status", r)
}
