package sdk

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Every plugin, whatever its category, has the same optional lifecycle,
// applied by the core in one place:
//
//  1. built by its constructor (or loaded: gRPC, WASM);
//  2. Configurable: its settings decoded strictly into PluginConfig() from
//     the manifest's config and --plugin-config category.name.key=value
//     (an unknown key is an error naming the plugin and the key);
//  3. Initializer: Init with the run's facts, before the first request;
//  4. Validator: Validate, before the run starts;
//  5. io.Closer: Close, in reverse order of construction, also when a later
//     plugin failed to start.
//
// Category interfaces carry only the category's own work.

// Initializer is implemented by plugins that need the run's facts before
// they are used.
type Initializer interface {
	Init(ctx context.Context, run RunInfo) error
}

// Logging is implemented by built-in plugins that report notes while they
// work (a prompt that could not be made exact, trace records a filter
// dropped). The core hands them the run's logger, tagged with the plugin's
// "category.name", before Configure. External plugins log through their
// own process (go-plugin forwards it) and need not implement it.
type Logging interface {
	SetLogger(log *slog.Logger)
}

// Validator is implemented by plugins that check their configuration (and
// what Init made of it) before the run starts. Its error should say which
// setting is wrong and why.
type Validator interface {
	Validate() error
}

// Configurable is implemented by plugins with settings of their own.
// PluginConfig returns a pointer to the plugin's settings struct with its
// defaults filled in; the core decodes the configured values into it
// strictly (by json tag names) before Init.
type Configurable interface {
	PluginConfig() any
}

// RunInfo is what a plugin may know about the run when it is initialized.
type RunInfo struct {
	Endpoint  EndpointMetadata
	Streaming bool
	// Goodput maps a metric tag to its SLO threshold in the metric's display
	// unit (e.g. ms). Empty means no goodput metrics.
	Goodput map[string]float64
	// Models are the --model names.
	Models []string
	// Seed is the run's random seed (--random-seed, or drawn once).
	Seed int64
	// Phase is the phase a per-phase plugin (timing strategy, arrival
	// pattern, ramp) serves; empty for run-wide plugins.
	Phase string
	// MaxConcurrency is the largest number of requests in flight the run
	// allows (0 = unbounded): the transport sizes its pool with it.
	MaxConcurrency int
	// RequestTimeout bounds one request (--request-timeout-seconds).
	RequestTimeout time.Duration
	// ArtifactDir is where the run's files go.
	ArtifactDir string
	// UseServerTokenCount is --use-server-token-count: token counts come
	// from the server's usage, so comparing usage with client counts
	// (USAGE_DIFF_ONLY metrics) has nothing to compare.
	UseServerTokenCount bool
	// FixedSchedule is set when the run replays a trace's timestamps
	// (--fixed-schedule): FIXED_SCHEDULE_ONLY metrics apply.
	FixedSchedule bool
}

// DecodeConfig decodes a plugin's settings (a JSON object) into target, a
// pointer to the plugin's settings struct, refusing keys the struct does not
// have. Empty input leaves the defaults untouched. The core uses it for
// built-in plugins and grpcplugin/wasmguest for external ones, so every
// plugin reads its settings by the same rule.
func DecodeConfig(data []byte, target any) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(target); err != nil {
		var syn *json.SyntaxError
		var typ *json.UnmarshalTypeError
		switch {
		case errors.As(err, &typ) && typ.Field != "":
			return fmt.Errorf("setting %q: %s is not a %s", typ.Field, typ.Value, typ.Type)
		case errors.As(err, &syn):
			return fmt.Errorf("settings are not a JSON object: %w", err)
		case strings.HasPrefix(err.Error(), "json: unknown field "):
			return fmt.Errorf("unknown setting %s", strings.TrimPrefix(err.Error(), "json: unknown field "))
		}
		return err
	}
	if dec.More() {
		return errors.New("settings hold more than one JSON value")
	}
	return nil
}

// ApplyConfig delivers one plugin entry's settings (a JSON object) to
// plugin: decoded strictly into its PluginConfig() when it is Configurable;
// otherwise accepted only when empty. label names the entry
// (category.name) in the refusal. It is the one rule the core and the gRPC and
// WASM plugin helpers share.
func ApplyConfig(plugin any, label string, data []byte) error {
	c, ok := plugin.(Configurable)
	if !ok {
		keys, err := settingKeys(data)
		if err != nil {
			return err
		}
		if len(keys) > 0 {
			return fmt.Errorf("plugin %s takes no settings (got %s)", label, strings.Join(keys, ", "))
		}
		return nil
	}
	target := c.PluginConfig()
	if target == nil {
		return fmt.Errorf("plugin %s: PluginConfig() returned nil", label)
	}
	// Decoding errors name the setting; the caller names the plugin (the
	// gRPC and WASM adapters already prefix "plugin <label>: Configure").
	return DecodeConfig(data, target)
}

// settingKeys lists the keys of a settings object, quoted and sorted;
// empty input and JSON null hold none.
func settingKeys(data []byte) ([]string, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("settings are not a JSON object: %w", err)
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, strconv.Quote(k))
	}
	slices.Sort(keys)
	return keys, nil
}
