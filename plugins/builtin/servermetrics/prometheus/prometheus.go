// Package prometheus is the "prometheus" server-metrics collector: an HTTP
// GET of one Prometheus /metrics URL per scrape, as AIPerf 0.13's
// ServerMetricsDataCollector fetches it. Parsing and statistics are the
// core's (core/telemetry/servermetrics).
package prometheus

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/scrapeurl"
)

// Name is the plugin name.
const Name = "prometheus"

// DefaultTimeout bounds one scrape when the core's context has no earlier
// deadline.
const DefaultTimeout = 5 * time.Second

// maxBody bounds one response: a vLLM page is tens of KiB.
const maxBody = 32 << 20

// accept asks for the text format the core parses (OpenMetrics is
// accepted too: the core drops its "# EOF").
const accept = "text/plain;version=0.0.4;q=1,application/openmetrics-text;version=1.0.0;q=0.5,*/*;q=0.1"

// Config is the collector's settings: the source URL the core passes and a
// timeout per scrape (0: DefaultTimeout).
type Config = scrapeurl.Config

// Collector scrapes one URL.
type Collector struct {
	cfg    Config
	client *http.Client
}

var (
	_ sdk.ServerMetricsCollector = (*Collector)(nil)
	_ sdk.Configurable           = (*Collector)(nil)
	_ sdk.Validator              = (*Collector)(nil)
)

// New returns a collector; its URL comes from PluginConfig.
func New() *Collector { return &Collector{} }

// NewForURL returns a collector of rawURL (normalized) with the default
// timeout.
func NewForURL(rawURL string) *Collector { return &Collector{cfg: Config{URL: NormalizeURL(rawURL)}} }

// PluginConfig implements sdk.Configurable.
func (c *Collector) PluginConfig() any { return &c.cfg }

// Validate checks and normalizes the URL.
func (c *Collector) Validate() error {
	return c.cfg.Check("server_metrics_collector.prometheus", "http://localhost:8000/metrics")
}

// NormalizeURL is AIPerf's normalize_metrics_endpoint_url: http:// when no
// scheme is given, /metrics appended unless the URL already ends in it.
func NormalizeURL(raw string) string {
	return scrapeurl.Normalize(raw)
}

// Source implements sdk.ServerMetricsCollector: the URL without
// credentials.
func (c *Collector) Source() string {
	return scrapeurl.Display(c.cfg.URL)
}

func (c *Collector) httpClient() *http.Client {
	if c.client == nil {
		c.client = c.cfg.Client(DefaultTimeout)
	}
	return c.client
}

// Scrape fetches the page once; a non-200 answer is an error naming the URL.
func (c *Collector) Scrape(ctx context.Context) (sdk.ServerMetricsScrape, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.cfg.URL, nil)
	if err != nil {
		return sdk.ServerMetricsScrape{}, fmt.Errorf("scrape %s: %w", c.Source(), err)
	}
	req.Header.Set("Accept", accept)
	resp, err := c.httpClient().Do(req)
	if err != nil {
		// The client's error quotes the URL as given: keep credentials out.
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return sdk.ServerMetricsScrape{}, fmt.Errorf("scrape %s: %w", c.Source(), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxBody))
	if err != nil {
		return sdk.ServerMetricsScrape{}, fmt.Errorf("scrape %s: read body: %w", c.Source(), err)
	}
	if resp.StatusCode != http.StatusOK {
		return sdk.ServerMetricsScrape{}, fmt.Errorf("scrape %s: HTTP %d", c.Source(), resp.StatusCode)
	}
	return sdk.ServerMetricsScrape{Body: body, ContentType: resp.Header.Get("Content-Type")}, nil
}
