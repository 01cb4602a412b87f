package sdk

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// Cardinality says how many plugins of a category a run uses.
type Cardinality string

const (
	// One: exactly one plugin is selected by configuration (e.g. endpoint).
	One Cardinality = "one"
	// Many: every registered plugin of the category runs (e.g. data_exporter).
	Many Cardinality = "many"
)

// External plugin kinds a category may accept besides builtin.
const (
	KindGRPC = "grpc"
	KindWASM = "wasm"
)

// Category is the one descriptor of a plugin category: everything the
// registry, `aiperf plugins --validate`, the built-in check and the docs
// know about it is derived from this value.
type Category struct {
	Name        string
	Description string
	Cardinality Cardinality
	// ExternalKinds are the external kinds (grpc, wasm) whose loaders can
	// serve the category: those with calls in the plugin protocol. Empty
	// means builtin only; BuiltinReason then says why.
	ExternalKinds []string
	// BuiltinReason explains, for messages, why a category accepts no
	// external kind (or not all of them).
	BuiltinReason string
	// Interface is the Go interface every implementation satisfies.
	Interface reflect.Type
	// Order places the category in listings (`aiperf plugins`, the docs).
	Order int
}

// BuiltinOnly reports whether the category accepts builtin plugins alone.
func (c Category) BuiltinOnly() bool { return len(c.ExternalKinds) == 0 }

// Accepts reports whether the category accepts plugins of kind ("builtin",
// "grpc", "wasm").
func (c Category) Accepts(kind string) bool {
	return kind == "builtin" || slices.Contains(c.ExternalKinds, kind)
}

// Implements reports whether v satisfies the category's interface.
func (c Category) Implements(v any) bool {
	return v != nil && c.Interface != nil && reflect.TypeOf(v).Implements(c.Interface)
}

// InterfaceName names the interface for messages, e.g. "sdk.Endpoint".
func (c Category) InterfaceName() string {
	if c.Interface == nil {
		return "?"
	}
	return c.Interface.String()
}

// CategoryOf is a category whose implementations are T. Typed handles let
// the registry and the core build and fetch plugins without type switches.
type CategoryOf[T any] struct{ Category }

func define[T any](c Category) CategoryOf[T] {
	c.Interface = reflect.TypeFor[T]()
	Categories = append(Categories, c)
	return CategoryOf[T]{c}
}

// Category names.
const (
	CategoryEndpoint        = "endpoint"
	CategoryTransport       = "transport"
	CategoryTimingStrategy  = "timing_strategy"
	CategoryArrivalPattern  = "arrival_pattern"
	CategoryRamp            = "ramp"
	CategoryCustomDataset   = "custom_dataset_loader"
	CategoryDatasetComposer = "dataset_composer"
	CategoryTokenizer       = "tokenizer"
	CategoryRecordProcessor = "record_processor"
	CategoryAccumulator     = "accumulator"
	CategoryDataExporter    = "data_exporter"
	CategoryConsoleExporter = "console_exporter"
	CategoryUI              = "ui"
)

const timedWindow = "it runs inside the timed window"

var noRPC = "the plugin protocol has no calls for it in API v" + strconv.Itoa(APIVersion)

// The categories of this contract version.
var (
	Endpoints = define[Endpoint](Category{Name: CategoryEndpoint, Cardinality: One, Order: 10,
		Description:   "Request formatting and response parsing for one API shape",
		ExternalKinds: []string{KindGRPC, KindWASM}})
	Transports = define[Transport](Category{Name: CategoryTransport, Cardinality: One, Order: 20,
		Description: "Network layer that sends requests and timestamps responses", BuiltinReason: timedWindow})
	TimingStrategies = define[TimingStrategy](Category{Name: CategoryTimingStrategy, Cardinality: One, Order: 30,
		Description: "When requests are issued (closed loop, rate, schedule)", BuiltinReason: timedWindow})
	ArrivalPatterns = define[ArrivalPattern](Category{Name: CategoryArrivalPattern, Cardinality: One, Order: 40,
		Description: "Inter-arrival gaps of open-loop request rates", BuiltinReason: timedWindow})
	Ramps = define[Ramp](Category{Name: CategoryRamp, Cardinality: One, Order: 50,
		Description: "How concurrency or rate ramps up to its target", BuiltinReason: timedWindow})
	DatasetComposers = define[DatasetComposer](Category{Name: CategoryDatasetComposer, Cardinality: One, Order: 70,
		Description: "Builds the conversations a run sends", BuiltinReason: noRPC})
	CustomDatasetLoaders = define[CustomDatasetLoader](Category{Name: CategoryCustomDataset, Cardinality: One, Order: 80,
		Description:   "Reads dataset files (--input-file) in a given format",
		ExternalKinds: []string{KindGRPC, KindWASM}})
	Tokenizers = define[TokenizerLoader](Category{Name: CategoryTokenizer, Cardinality: One, Order: 100,
		Description: "Token counting for ISL/OSL and exact-length prompts", BuiltinReason: noRPC})
	RecordProcessors = define[RecordProcessor](Category{Name: CategoryRecordProcessor, Cardinality: Many, Order: 110,
		Description:   "Per-record metric computation; declares the metrics it produces",
		ExternalKinds: []string{KindGRPC, KindWASM}})
	Accumulators = define[Accumulator](Category{Name: CategoryAccumulator, Cardinality: Many, Order: 120,
		Description: "Folds processed records into results", BuiltinReason: noRPC})
	DataExporters = define[DataExporter](Category{Name: CategoryDataExporter, Cardinality: Many, Order: 130,
		Description:   "Writes result files (JSON, CSV, JSONL, ...)",
		ExternalKinds: []string{KindGRPC},
		BuiltinReason: "the WASM sandbox grants no writable filesystem"})
	ConsoleExporters = define[ConsoleExporter](Category{Name: CategoryConsoleExporter, Cardinality: Many, Order: 140,
		Description: "Terminal tables and panels printed after a run", BuiltinReason: noRPC})
	UIs = define[UI](Category{Name: CategoryUI, Cardinality: One, Order: 150,
		Description: "Progress display while a run executes", BuiltinReason: noRPC})
)

// Categories lists every category of this contract version, by Order: the
// order `aiperf plugins` shows them. Each define adds its descriptor, so a
// category is one declaration (in this file or next to its interface).
var Categories []Category

func init() {
	slices.SortStableFunc(Categories, func(a, b Category) int { return a.Order - b.Order })
}

// LookupCategory returns the category with the given name.
func LookupCategory(name string) (Category, bool) {
	for _, c := range Categories {
		if c.Name == name {
			return c, true
		}
	}
	return Category{}, false
}

// NormalizeName is the one rule that turns a user-supplied category or
// plugin name into its registry key: trimmed, lowercase, '-' replaced by
// '_' (so --endpoint-type text-gen finds the plugin text_gen). Manifests,
// flags, --plugin-config and `aiperf plugins` all use it.
func NormalizeName(name string) string {
	return strings.ReplaceAll(strings.ToLower(strings.TrimSpace(name)), "-", "_")
}
