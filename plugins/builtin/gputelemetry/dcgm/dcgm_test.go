package dcgm

import (
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/aiperf-go/aiperf/mockserver"
)

// page is a trimmed DCGM exporter page in its real format (dcgm-exporter
// 3.x default counters), two GPUs.
const page = `# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).
# TYPE DCGM_FI_DEV_SM_CLOCK gauge
DCGM_FI_DEV_SM_CLOCK{gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1",DCGM_FI_DRIVER_VERSION="550.54.15"} 1980
# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).
# TYPE DCGM_FI_DEV_POWER_USAGE gauge
DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 312.5
DCGM_FI_DEV_POWER_USAGE{gpu="1",UUID="GPU-bbbb",pci_bus_id="00000000:2A:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 70.25
# HELP DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION Total energy consumption since boot (in mJ).
# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter
DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 81000525000
# HELP DCGM_FI_DEV_FB_USED Frame buffer memory used (in MB).
# TYPE DCGM_FI_DEV_FB_USED gauge
DCGM_FI_DEV_FB_USED{gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 2048
# HELP DCGM_FI_PROF_SM_ACTIVE The ratio of cycles an SM has at least 1 warp assigned (in %).
# TYPE DCGM_FI_PROF_SM_ACTIVE gauge
DCGM_FI_PROF_SM_ACTIVE{gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 0.45
# HELP DCGM_FI_DEV_POWER_VIOLATION Throttling duration due to power constraints (in us).
# TYPE DCGM_FI_DEV_POWER_VIOLATION counter
DCGM_FI_DEV_POWER_VIOLATION{gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 123456
# HELP DCGM_FI_DEV_GPU_UTIL GPU utilization (in %).
# TYPE DCGM_FI_DEV_GPU_UTIL gauge
DCGM_FI_DEV_GPU_UTIL{gpu="0",UUID="GPU-aaaa",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} 50
DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-bbbb",pci_bus_id="00000000:2A:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="node1"} NaN
DCGM_FI_DEV_GPU_UTIL{UUID="GPU-nolabel"} 99
# HELP DCGM_FI_DEV_GPU_TEMP GPU temperature (in C).
# TYPE DCGM_FI_DEV_GPU_TEMP gauge
DCGM_FI_DEV_GPU_TEMP{gpu="x",UUID="GPU-badindex"} 40
`

func TestParseMapsFieldsAndUnits(t *testing.T) {
	got, err := Parse([]byte(page))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 {
		t.Fatalf("want 2 GPUs, got %d: %+v", len(got), got)
	}
	g0, g1 := got[0], got[1]
	if g0.Index != 0 || g0.UUID != "GPU-aaaa" || g0.Name != "NVIDIA H100 80GB HBM3" || g0.PCIBusID != "00000000:18:00.0" ||
		g0.Device != "nvidia0" || g0.Hostname != "node1" {
		t.Fatalf("GPU 0 identity: %+v", g0)
	}
	// AIPerf's scaling: energy mJ*1e-9 -> MJ, FB MiB*1.048576e-3 -> GB,
	// SM active ratio*100 -> %, power violation *1e-3; power and util as is.
	for _, c := range []struct {
		field string
		want  float64
	}{
		{"nvidia_power_usage", 312.5},
		{"nvidia_energy_consumption", 81.000525},
		{"nvidia_memory_used", 2.147483648},
		{"nvidia_sm_utilization", 45},
		{"nvidia_power_violation", 123.456},
		{"nvidia_gpu_utilization", 50},
	} {
		v, ok := g0.Metrics[c.field]
		if !ok || math.Abs(v-c.want) > 1e-9*math.Max(1, c.want) {
			t.Errorf("GPU 0 %s = %v (present %v), want %v", c.field, v, ok, c.want)
		}
	}
	if len(g0.Metrics) != 6 {
		t.Errorf("GPU 0: unmapped fields leaked: %v", g0.Metrics)
	}
	if g1.Index != 1 || g1.UUID != "GPU-bbbb" || g1.Metrics["nvidia_power_usage"] != 70.25 {
		t.Errorf("GPU 1: %+v", g1)
	}
	if _, ok := g1.Metrics["nvidia_gpu_utilization"]; ok {
		t.Errorf("GPU 1: a NaN value must be left out, got %v", g1.Metrics)
	}
}

func TestParseBadInput(t *testing.T) {
	if got, err := Parse([]byte("  \n")); err != nil || got != nil {
		t.Fatalf("empty page: %v %v", got, err)
	}
	if _, err := Parse([]byte("DCGM_FI_DEV_POWER_USAGE{gpu=\"0\" 1\n")); err == nil {
		t.Fatal("a broken label set must be an error")
	}
}

func TestNormalizeURL(t *testing.T) {
	for in, want := range map[string]string{
		"localhost:9400":                 "http://localhost:9400/metrics",
		"http://node1:9401/metrics":      "http://node1:9401/metrics",
		"https://node1:9401/":            "https://node1:9401/metrics",
		"127.0.0.1:8000/dcgm":            "http://127.0.0.1:8000/dcgm/metrics",
		" http://h:1/dcgm/metrics/ ":     "http://h:1/dcgm/metrics",
		"node2:9400/api/v1/prom/metrics": "http://node2:9400/api/v1/prom/metrics",
	} {
		if got := NormalizeURL(in); got != want {
			t.Errorf("NormalizeURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSampleFromMockServer(t *testing.T) {
	s, err := mockserver.New(mockserver.Config{Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()

	c := New()
	c.PluginConfig().(*Config).URL = strings.TrimPrefix(srv.URL, "http://") + "/dcgm"
	if err := c.Validate(); err != nil {
		t.Fatal(err)
	}
	if c.Source() != srv.URL+mockserver.DCGMPath {
		t.Fatalf("source %q", c.Source())
	}
	got, err := c.Sample(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[1].UUID != "GPU-5fd4c4a2-6a1b-4c1e-9f0a-000000000001" || got[0].Hostname != "mock-dcgm" {
		t.Fatalf("readings: %+v", got)
	}
	if got[0].Metrics["nvidia_power_usage"] != 70 || got[0].Metrics["nvidia_energy_consumption"] < 81 {
		t.Fatalf("idle GPU 0: %v", got[0].Metrics)
	}
}

func TestSampleErrorsNameTheURL(t *testing.T) {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		switch r.URL.Path {
		case "/garbage/metrics":
			_, _ = w.Write([]byte("this is { not prometheus\n"))
		case "/json/metrics":
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write([]byte(`[{"iter": 1}]`))
		case "/same/metrics":
			_, _ = w.Write([]byte(page))
		default:
			http.Error(w, "boom", http.StatusInternalServerError)
		}
	}))
	defer srv.Close()
	for _, c := range []struct{ path, want string }{
		{"/garbage", "invalid Prometheus text"},
		{"/json", "is not Prometheus text"},
		{"/down", "HTTP 500"},
	} {
		col := NewForURL(srv.URL + c.path)
		_, err := col.Sample(context.Background())
		if err == nil || !strings.Contains(err.Error(), srv.URL+c.path+"/metrics") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want the URL and %q", c.path, err, c.want)
		}
	}
	// A closed port is an error naming it, not a panic.
	dead := NewForURL("127.0.0.1:1")
	if _, err := dead.Sample(context.Background()); err == nil || !strings.Contains(err.Error(), "http://127.0.0.1:1/metrics") {
		t.Errorf("dead endpoint: %v", err)
	}
	// Credentials in the URL stay out of the error (Go's url.Error quotes it).
	withKey := NewForURL("http://u:pw-SECRET@127.0.0.1:1/metrics?token=q-SECRET")
	if _, err := withKey.Sample(context.Background()); err == nil || strings.Contains(err.Error(), "SECRET") ||
		!strings.Contains(err.Error(), "http://127.0.0.1:1/metrics?token=<redacted>") {
		t.Errorf("dead endpoint with credentials: %v", err)
	}
	// An unchanged page is a duplicate scrape: no readings the second time.
	same := NewForURL(srv.URL + "/same")
	first, err := same.Sample(context.Background())
	if err != nil || len(first) != 2 {
		t.Fatalf("first scrape: %v %v", first, err)
	}
	if second, err := same.Sample(context.Background()); err != nil || second != nil {
		t.Fatalf("duplicate scrape: %v %v", second, err)
	}
	if calls < 5 {
		t.Fatalf("server saw %d calls", calls)
	}
}

func TestValidate(t *testing.T) {
	c := New()
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), `"url"`) {
		t.Fatalf("empty url: %v", err)
	}
	c.PluginConfig().(*Config).URL = "ftp://x:1/metrics"
	if err := c.Validate(); err == nil {
		t.Fatal("ftp URL accepted")
	}
}
