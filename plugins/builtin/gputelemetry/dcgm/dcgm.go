// Package dcgm is the "dcgm" GPU telemetry collector: it scrapes one NVIDIA
// DCGM exporter endpoint (Prometheus text) and maps its DCGM_FI_* fields
// onto AIPerf 0.13's GPU metric names and units, as AIPerf's
// DCGMTelemetryCollector (aiperf/gpu_telemetry/dcgm_collector.py) does.
package dcgm

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/gputelemetry/gpufields"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/scrapeurl"
)

// Name is the plugin name (AIPerf's GPUTelemetryCollectorType.DCGM).
const Name = "dcgm"

// DefaultTimeout bounds one scrape.
const DefaultTimeout = 5 * time.Second

// maxBody bounds what one scrape reads: a DCGM page is tens of KiB per GPU.
const maxBody = 32 << 20

// Config is the collector's settings: the source URL the core passes and a
// timeout per scrape (0: DefaultTimeout).
type Config = scrapeurl.Config

// Collector scrapes one DCGM exporter URL.
type Collector struct {
	cfg    Config
	client *http.Client

	mu       sync.Mutex
	lastHash uint64
	seen     bool
}

var (
	_ sdk.GPUTelemetryCollector = (*Collector)(nil)
	_ sdk.Configurable          = (*Collector)(nil)
	_ sdk.Validator             = (*Collector)(nil)
)

// New returns a collector; its URL comes from PluginConfig (or NewForURL).
func New() *Collector { return &Collector{} }

// NewForURL returns a collector of url with the default timeout.
func NewForURL(rawURL string) *Collector {
	return &Collector{cfg: Config{URL: NormalizeURL(rawURL)}}
}

// PluginConfig implements sdk.Configurable.
func (c *Collector) PluginConfig() any { return &c.cfg }

// Validate checks the URL and normalizes it as AIPerf does (a scheme and a
// /metrics path are added when missing).
func (c *Collector) Validate() error {
	return c.cfg.Check("gpu_telemetry_collector.dcgm", "a DCGM exporter URL such as http://localhost:9400/metrics")
}

// NormalizeURL adds http:// when no scheme is given and /metrics when the
// path does not end in it (AIPerf's _url and _normalize_dcgm_url).
func NormalizeURL(raw string) string {
	return scrapeurl.Normalize(raw)
}

// Source implements sdk.GPUTelemetryCollector: the exporter's URL,
// without credentials.
func (c *Collector) Source() string { return scrapeurl.Display(c.cfg.URL) }

func (c *Collector) httpClient() *http.Client {
	if c.client == nil {
		c.client = c.cfg.Client(DefaultTimeout)
	}
	return c.client
}

// Sample scrapes the endpoint once. A page identical to the previous one
// gives no readings (AIPerf drops duplicate scrapes: the exporter had not
// refreshed); an HTTP failure or an unparsable page is an error naming the
// URL.
func (c *Collector) Sample(ctx context.Context) ([]sdk.GPUReading, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cfg.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("dcgm %s: %w", c.Source(), err)
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		// The client's error quotes the URL as given: keep credentials out.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("dcgm %s: %w", c.Source(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return nil, fmt.Errorf("dcgm %s: read body: %w", c.Source(), err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("dcgm %s: HTTP %d", c.Source(), resp.StatusCode)
	}
	ct := strings.ToLower(resp.Header.Get("Content-Type"))
	if strings.HasPrefix(ct, "application/json") {
		return nil, fmt.Errorf("dcgm %s: content-type %q is not Prometheus text", c.Source(), ct)
	}
	h := fnv.New64a()
	_, _ = h.Write(body)
	sum := h.Sum64()
	if c.seen && sum == c.lastHash {
		return nil, nil
	}
	c.seen, c.lastHash = true, sum
	readings, err := Parse(body)
	if err != nil {
		return nil, fmt.Errorf("dcgm %s: %w", c.Source(), err)
	}
	return readings, nil
}

// Parse reads a DCGM exporter page: every sample with an integer "gpu"
// label contributes to that GPU; the GPU's identity comes from the labels
// of its first sample (UUID, modelName, pci_bus_id, device, Hostname);
// mapped fields are scaled to AIPerf's units; NaN and ±Inf values are
// skipped. GPUs come out in index order.
func Parse(body []byte) ([]sdk.GPUReading, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("invalid Prometheus text: %w", err)
	}
	byIndex := map[int]*sdk.GPUReading{}
	names := make([]string, 0, len(families))
	for name := range families {
		names = append(names, name)
	}
	// Text order is lost in the map; sorted names keep identity picking
	// (first sample of a GPU) deterministic.
	sort.Strings(names)
	for _, name := range names {
		fam := families[name]
		field, mapped := gpufields.DCGMFields[strings.TrimSuffix(name, "_total")]
		for _, m := range fam.GetMetric() {
			v, ok := value(fam.GetType(), m)
			if !ok || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			labels := make(map[string]string, len(m.GetLabel()))
			for _, lp := range m.GetLabel() {
				labels[lp.GetName()] = lp.GetValue()
			}
			idx, err := strconv.Atoi(labels["gpu"])
			if err != nil {
				continue // no or non-integer gpu label: not a per-GPU sample
			}
			r := byIndex[idx]
			if r == nil {
				r = &sdk.GPUReading{
					Index: idx, UUID: labels["UUID"], Name: labels["modelName"],
					PCIBusID: labels["pci_bus_id"], Device: labels["device"], Hostname: labels["Hostname"],
					Metrics: map[string]float64{},
				}
				byIndex[idx] = r
			}
			if mapped {
				if f, ok := gpufields.DCGMScale[field]; ok {
					// A huge raw value can overflow to ±Inf once scaled.
					if v *= f; math.IsInf(v, 0) {
						continue
					}
				}
				r.Metrics[field] = v
			}
		}
	}
	idxs := make([]int, 0, len(byIndex))
	for i, r := range byIndex {
		if len(r.Metrics) > 0 { // AIPerf makes a record only for GPUs with mapped data
			idxs = append(idxs, i)
		}
	}
	sort.Ints(idxs)
	out := make([]sdk.GPUReading, 0, len(idxs))
	for _, i := range idxs {
		out = append(out, *byIndex[i])
	}
	return out, nil
}

func value(t dto.MetricType, m *dto.Metric) (float64, bool) {
	switch t {
	case dto.MetricType_GAUGE:
		return m.GetGauge().GetValue(), m.Gauge != nil
	case dto.MetricType_COUNTER:
		return m.GetCounter().GetValue(), m.Counter != nil
	case dto.MetricType_UNTYPED:
		return m.GetUntyped().GetValue(), m.Untyped != nil
	}
	return 0, false // histograms and summaries carry no DCGM field
}
