package config

import "strings"

// RunConfig is the resolved configuration of one `aiperf profile` run.
// Pointer fields are nil when the user did not set them (unset differs from
// any default); the Effective* methods apply AIPerf's computed defaults.
type RunConfig struct {
	// Endpoint
	ModelNames            []string `koanf:"model_names"`
	URL                   []string `koanf:"url"`
	EndpointType          string   `koanf:"endpoint_type"`
	CustomEndpoint        string   `koanf:"custom_endpoint"`
	Streaming             bool     `koanf:"streaming"`
	APIKey                string   `koanf:"api_key"`
	RequestTimeoutSeconds float64  `koanf:"request_timeout_seconds"`
	UseLegacyMaxTokens    bool     `koanf:"use_legacy_max_tokens"`
	UseServerTokenCount   bool     `koanf:"use_server_token_count"`

	// Input. Header and ExtraInputsRaw keep the raw items; use Headers() and
	// ExtraInputs() for the parsed maps.
	Header         []string `koanf:"header"`
	ExtraInputsRaw []string `koanf:"extra_inputs"`
	RandomSeed     *int64   `koanf:"random_seed"`
	// Goodput is the raw --goodput string; core/metrics.ParseGoodput checks it.
	Goodput string `koanf:"goodput"`

	// Sequence lengths and dataset size.
	InputTokensMean    int     `koanf:"prompt_input_tokens_mean"`
	InputTokensStddev  float64 `koanf:"prompt_input_tokens_stddev"`
	OutputTokensMean   *int    `koanf:"prompt_output_tokens_mean"`
	OutputTokensStddev float64 `koanf:"prompt_output_tokens_stddev"`
	NumDatasetEntries  int     `koanf:"num_dataset_entries"`

	// Output
	ArtifactDir         string `koanf:"output_artifact_dir"`
	ProfileExportPrefix string `koanf:"profile_export_prefix"`
	ExportLevel         string `koanf:"export_level"`

	// Tokenizer is empty when unset: the application decides.
	Tokenizer                string `koanf:"tokenizer"`
	TokenizerRevision        string `koanf:"tokenizer_revision"`
	TokenizerTrustRemoteCode bool   `koanf:"tokenizer_trust_remote_code"`

	// Load generator
	Concurrency        *int `koanf:"concurrency"`
	RequestCount       *int `koanf:"request_count"`
	WarmupRequestCount *int `koanf:"warmup_request_count"`

	// Service. LogLevel already reflects -v/-vv; UIType is resolved (never
	// empty after Load, and never "dashboard").
	LogLevel     string `koanf:"log_level"`
	Verbose      bool   `koanf:"verbose"`
	ExtraVerbose bool   `koanf:"extra_verbose"`
	UIType       string `koanf:"ui_type"`

	// ConfigFile is the --user-config-file that was read, if any.
	ConfigFile string `koanf:"-"`
	// ArtifactDirSet reports whether the user chose the artifact directory
	// (flag, file or env); only then is no per-run subdirectory added.
	ArtifactDirSet bool `koanf:"-"`
}

// Defaults of computed values (AIPerf LoadGeneratorDefaults).
const (
	defaultConcurrency     = 1
	minRequestCount        = 10
	requestCountMultiplier = 2
)

// URLs returns the base URLs with "http://" prepended where no http(s)
// scheme is given, as AIPerf's normalize_http_url does.
func (c *RunConfig) URLs() []string {
	out := make([]string, len(c.URL))
	for i, u := range c.URL {
		out[i] = normalizeURL(u)
	}
	return out
}

func normalizeURL(u string) string {
	u = strings.TrimSpace(u)
	if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
		return u
	}
	return "http://" + u
}

// EffectiveConcurrency is --concurrency, or 1 when it was not given (no rate
// mode exists in this slice, so the run is a concurrency burst).
func (c *RunConfig) EffectiveConcurrency() int {
	if c.Concurrency != nil {
		return *c.Concurrency
	}
	return defaultConcurrency
}

// EffectiveRequestCount is --request-count, or max(10, 2*concurrency).
func (c *RunConfig) EffectiveRequestCount() int {
	if c.RequestCount != nil {
		return *c.RequestCount
	}
	return max(minRequestCount, requestCountMultiplier*c.EffectiveConcurrency())
}

// EffectiveWarmupRequestCount is --warmup-request-count, or 0 (no warmup).
func (c *RunConfig) EffectiveWarmupRequestCount() int {
	if c.WarmupRequestCount != nil {
		return *c.WarmupRequestCount
	}
	return 0
}

// ExtraInputs returns --extra-inputs as one map (later items win). Items that
// do not parse are skipped; Validate reports them.
func (c *RunConfig) ExtraInputs() map[string]any {
	out := make(map[string]any)
	for _, item := range c.ExtraInputsRaw {
		pairs, err := parsePairs(item, jsonScalar)
		if err != nil {
			continue
		}
		for _, p := range pairs {
			out[p.key] = p.val
		}
	}
	return out
}

// Headers returns the request headers the user configured: "Authorization:
// Bearer <api-key>" when --api-key is set, overridden by any -H items (later
// items win). Items that do not parse are skipped; Validate reports them.
func (c *RunConfig) Headers() map[string]string {
	out := make(map[string]string)
	if c.APIKey != "" {
		out["Authorization"] = "Bearer " + c.APIKey
	}
	for _, item := range c.Header {
		pairs, err := parsePairs(item, headerValue)
		if err != nil {
			continue
		}
		for _, p := range pairs {
			// Header names are case-insensitive: a -H item replaces any
			// earlier spelling (e.g. the api-key Authorization).
			for k := range out {
				if strings.EqualFold(k, p.key) {
					delete(out, k)
				}
			}
			out[p.key] = p.val.(string)
		}
	}
	return out
}
