package mockserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestDCGMPageMovesWithLoad(t *testing.T) {
	clock := time.Unix(1_700_000_000, 0)
	load := 0
	d := newDCGMState(func() int { return load }, func() time.Time { return clock })

	idle := d.render()
	for _, want := range []string{
		"# HELP DCGM_FI_DEV_POWER_USAGE Power draw (in W).\n# TYPE DCGM_FI_DEV_POWER_USAGE gauge\n",
		`DCGM_FI_DEV_POWER_USAGE{gpu="0",UUID="GPU-5fd4c4a2-6a1b-4c1e-9f0a-000000000000",pci_bus_id="00000000:18:00.0",device="nvidia0",modelName="NVIDIA H100 80GB HBM3",Hostname="mock-dcgm",DCGM_FI_DRIVER_VERSION="550.54.15"} 70` + "\n",
		`DCGM_FI_DEV_GPU_UTIL{gpu="1",UUID="GPU-5fd4c4a2-6a1b-4c1e-9f0a-000000000001",pci_bus_id="00000000:2A:00.0",device="nvidia1",modelName="NVIDIA H100 80GB HBM3",Hostname="mock-dcgm",DCGM_FI_DRIVER_VERSION="550.54.15"} 0` + "\n",
		"# TYPE DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION counter\n",
		`Hostname="mock-dcgm",DCGM_FI_DRIVER_VERSION="550.54.15"} 81000000000` + "\n",
		`DCGM_FI_DEV_FB_USED{gpu="0"`,
	} {
		if !strings.Contains(idle, want) {
			t.Fatalf("idle page lacks %q:\n%s", want, idle)
		}
	}

	// Two requests in flight for 2 s: GPU 0 at 50% draws 70+6.3*50 = 385 W,
	// GPU 1 at 40% 322 W; the energy counter integrates the previous
	// scrape's power (70 W for 2 s = 140 J = 140000 mJ).
	load, clock = 2, clock.Add(2*time.Second)
	busy := d.render()
	for _, want := range []string{
		`DCGM_FI_DEV_POWER_USAGE{gpu="0",` + labelsTail(0) + " 385\n",
		`DCGM_FI_DEV_POWER_USAGE{gpu="1",` + labelsTail(1) + " 322\n",
		`DCGM_FI_DEV_GPU_UTIL{gpu="0",` + labelsTail(0) + " 50\n",
		`DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",` + labelsTail(0) + " 81000140000\n",
		`DCGM_FI_DEV_FB_USED{gpu="0",` + labelsTail(0) + " 2048\n",
		`DCGM_FI_PROF_SM_ACTIVE{gpu="0",` + labelsTail(0) + " 0.45\n",
	} {
		if !strings.Contains(busy, want) {
			t.Fatalf("busy page lacks %q:\n%s", want, busy)
		}
	}
	// One more second at 385 W: +385000 mJ.
	clock = clock.Add(time.Second)
	if got := d.render(); !strings.Contains(got, `DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION{gpu="0",`+labelsTail(0)+" 81000525000\n") {
		t.Fatalf("energy did not integrate 385 W over 1 s:\n%s", got)
	}
}

func labelsTail(i int) string {
	g := dcgmGPUs[i]
	return `UUID="` + g.uuid + `",pci_bus_id="` + g.pciBusID + `",device="nvidia` + string(rune('0'+i)) +
		`",modelName="NVIDIA H100 80GB HBM3",Hostname="mock-dcgm",DCGM_FI_DRIVER_VERSION="550.54.15"}`
}

func TestDCGMRouteServed(t *testing.T) {
	s, err := New(Config{Fast: true})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(s.Handler())
	defer srv.Close()
	resp, err := http.Get(srv.URL + DCGMPath)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/plain") {
		t.Fatalf("GET %s: %d %q", DCGMPath, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if strings.Count(string(body), "DCGM_FI_DEV_POWER_USAGE{") != 2 {
		t.Fatalf("want 2 GPUs' power lines:\n%s", body)
	}
}
