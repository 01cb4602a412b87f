package nvml

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

var errNS = errors.New("ERROR_NOT_SUPPORTED")

type fakeDevice struct {
	uuid, name, bus string
	powerMW         uint32
	energyMJ        uint64
	util, memUtil   uint32
	memUsed         uint64
	temp            uint32
	dec, enc        uint32
	sm              float64
	violNs          uint64
	unsupported     bool // every metric fails (an idle MIG slice, say)
	noIdentity      bool
	calls           int
}

func (d *fakeDevice) fail() bool { d.calls++; return d.unsupported }

func (d *fakeDevice) UUID() (string, error) {
	if d.noIdentity {
		return "", errNS
	}
	return d.uuid, nil
}
func (d *fakeDevice) Name() (string, error) {
	if d.noIdentity {
		return "", errNS
	}
	return d.name, nil
}
func (d *fakeDevice) PCIBusID() (string, error) {
	if d.noIdentity {
		return "", errNS
	}
	return d.bus, nil
}
func (d *fakeDevice) PowerUsageMilliwatts() (uint32, error) {
	if d.fail() {
		return 0, errNS
	}
	return d.powerMW, nil
}
func (d *fakeDevice) TotalEnergyMillijoules() (uint64, error) {
	if d.fail() {
		return 0, errNS
	}
	return d.energyMJ, nil
}
func (d *fakeDevice) UtilizationRates() (uint32, uint32, error) {
	if d.fail() {
		return 0, 0, errNS
	}
	return d.util, d.memUtil, nil
}
func (d *fakeDevice) MemoryUsedBytes() (uint64, error) {
	if d.fail() {
		return 0, errNS
	}
	return d.memUsed, nil
}
func (d *fakeDevice) TemperatureC() (uint32, error) {
	if d.fail() {
		return 0, errNS
	}
	return d.temp, nil
}
func (d *fakeDevice) DecoderUtilization() (uint32, error) {
	if d.fail() {
		return 0, errNS
	}
	return d.dec, nil
}
func (d *fakeDevice) EncoderUtilization() (uint32, error) {
	if d.fail() {
		return 0, errNS
	}
	return d.enc, nil
}
func (d *fakeDevice) JpgUtilization() (uint32, error) {
	// JPEG engines exist on few GPUs: unsupported here even when the rest is.
	d.calls++
	return 0, errNS
}
func (d *fakeDevice) SMUtilization() (float64, error) {
	if d.fail() {
		return 0, errNS
	}
	return d.sm, nil
}
func (d *fakeDevice) PowerViolationNs() (uint64, error) {
	if d.fail() {
		return 0, errNS
	}
	return d.violNs, nil
}

type fakeLib struct {
	initErr  error
	devs     []*fakeDevice
	badIndex int // Device(badIndex) fails; -1 for none
	inits    int
	shutdown int
	calls    []string
}

func (l *fakeLib) Init() error { l.inits++; l.calls = append(l.calls, "init"); return l.initErr }
func (l *fakeLib) Shutdown() error {
	l.shutdown++
	l.calls = append(l.calls, "shutdown")
	return nil
}
func (l *fakeLib) DeviceCount() (int, error) {
	l.calls = append(l.calls, "count")
	return len(l.devs), nil
}
func (l *fakeLib) Device(i int) (Device, error) {
	l.calls = append(l.calls, "device")
	if i == l.badIndex {
		return nil, errNS
	}
	return l.devs[i], nil
}

func TestSampleReadsPyNVMLFieldsInAIPerfUnits(t *testing.T) {
	h100 := &fakeDevice{
		uuid: "GPU-1111", name: "NVIDIA H100 80GB HBM3", bus: "00000000:18:00.0",
		powerMW: 312_500, energyMJ: 81_000_525_000, util: 50, memUtil: 30,
		memUsed: 2_147_483_648, temp: 58, dec: 1, enc: 2, sm: 130, violNs: 123_456,
	}
	lib := &fakeLib{devs: []*fakeDevice{h100, {unsupported: true, uuid: "GPU-2222"}, {noIdentity: true, powerMW: 70_000}}, badIndex: -1}
	c := NewWithLibrary(lib)
	if c.Source() != "pynvml://localhost" {
		t.Fatalf("source %q", c.Source())
	}
	got, err := c.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// GPU 1 read nothing: left out, as AIPerf makes no record of it.
	if len(got) != 2 {
		t.Fatalf("want 2 readings, got %+v", got)
	}
	g := got[0]
	if g.Index != 0 || g.UUID != "GPU-1111" || g.Name != "NVIDIA H100 80GB HBM3" || g.PCIBusID != "00000000:18:00.0" ||
		g.Device != "nvidia0" || g.Hostname != "localhost" {
		t.Fatalf("identity: %+v", g)
	}
	want := map[string]float64{
		"nvidia_power_usage":         312.5,       // mW * 1e-3
		"nvidia_energy_consumption":  81.000525,   // mJ * 1e-9
		"nvidia_gpu_utilization":     50,          // %
		"nvidia_memory_utilization":  30,          // %
		"nvidia_memory_used":         2.147483648, // bytes * 1e-9
		"nvidia_temperature":         58,          // °C
		"nvidia_decoder_utilization": 1,
		"nvidia_encoder_utilization": 2,
		"nvidia_sm_utilization":      100,     // capped at 100
		"nvidia_power_violation":     123.456, // ns * 1e-3
	}
	if len(g.Metrics) != len(want) {
		t.Fatalf("fields read: %v", g.Metrics)
	}
	for k, v := range want {
		if math.Abs(g.Metrics[k]-v) > 1e-9*math.Max(1, v) {
			t.Errorf("%s = %v, want %v", k, g.Metrics[k], v)
		}
	}
	// AIPerf's identity fallbacks.
	if got[1].Index != 2 || got[1].UUID != "GPU-unknown-2" || got[1].Name != "Unknown GPU" || got[1].PCIBusID != "" ||
		got[1].Metrics["nvidia_power_usage"] != 70 {
		t.Fatalf("GPU 2: %+v", got[1])
	}
	// A second sample re-reads the devices without re-initializing.
	h100.powerMW = 400_000
	got, err = c.Sample(context.Background())
	if err != nil || got[0].Metrics["nvidia_power_usage"] != 400 || lib.inits != 1 {
		t.Fatalf("second sample: %v %v inits=%d", got, err, lib.inits)
	}
	if err := c.Close(); err != nil || lib.shutdown != 1 {
		t.Fatalf("close: %v shutdown=%d", err, lib.shutdown)
	}
}

func TestInitFailureIsOneErrorAndNoOtherCall(t *testing.T) {
	lib := &fakeLib{initErr: errors.New("NVML library (libnvidia-ml.so.1) not found"), badIndex: -1}
	c := NewWithLibrary(lib)
	for range 3 {
		_, err := c.Sample(context.Background())
		if err == nil || !strings.Contains(err.Error(), "nvml: NVML library (libnvidia-ml.so.1) not found") {
			t.Fatalf("error %v", err)
		}
	}
	// Init once; nothing else after a failed Init (go-nvml would crash).
	if strings.Join(lib.calls, ",") != "init" {
		t.Fatalf("calls after failed init: %v", lib.calls)
	}
	if err := c.Close(); err != nil || lib.shutdown != 0 {
		t.Fatalf("close after failed init: %v, shutdown=%d", err, lib.shutdown)
	}
}

func TestNoUsableGPU(t *testing.T) {
	lib := &fakeLib{devs: []*fakeDevice{{}}, badIndex: 0}
	_, err := NewWithLibrary(lib).Sample(context.Background())
	if err == nil || err.Error() != "nvml: no GPUs found" || lib.shutdown != 1 {
		t.Fatalf("err %v shutdown %d", err, lib.shutdown)
	}
}

// The real binding on this machine: with no NVIDIA driver, one clear error
// and no crash; on a GPU machine, readings.
func TestRealLibraryNeverCrashes(t *testing.T) {
	c := New()
	defer c.Close()
	got, err := c.Sample(context.Background())
	if err != nil {
		if !strings.Contains(err.Error(), "nvml: ") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("want one line naming nvml, got %q", err)
		}
		return
	}
	if len(got) == 0 || got[0].UUID == "" {
		t.Fatalf("readings without identity: %+v", got)
	}
}
