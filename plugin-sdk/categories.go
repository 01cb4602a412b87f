package sdk

// Cardinality says how many plugins of a category a run uses.
type Cardinality string

const (
	// One: exactly one plugin is selected by configuration (e.g. endpoint).
	One Cardinality = "one"
	// Many: every registered plugin of the category runs (e.g. data_exporter).
	Many Cardinality = "many"
)

// Category describes one plugin category of the contract.
type Category struct {
	Name        string
	Description string
	Cardinality Cardinality
	// BuiltinOnly categories sit inside the timed window and accept no
	// external (grpc/wasm) plugins.
	BuiltinOnly bool
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

// Categories lists every category of this contract version, in the order
// `aiperf plugins` shows them.
var Categories = []Category{
	{Name: CategoryEndpoint, Description: "Request formatting and response parsing for one API shape", Cardinality: One},
	{Name: CategoryTransport, Description: "Network layer that sends requests and timestamps responses", Cardinality: One, BuiltinOnly: true},
	{Name: CategoryTimingStrategy, Description: "When requests are issued (closed loop, rate, schedule)", Cardinality: One, BuiltinOnly: true},
	{Name: CategoryArrivalPattern, Description: "Inter-arrival gaps of open-loop request rates", Cardinality: One, BuiltinOnly: true},
	{Name: CategoryRamp, Description: "How concurrency or rate ramps up to its target", Cardinality: One, BuiltinOnly: true},
	{Name: CategoryDatasetComposer, Description: "Builds the conversations a run sends", Cardinality: One},
	{Name: CategoryCustomDataset, Description: "Reads dataset files (--input-file) in a given format", Cardinality: One},
	{Name: CategoryTokenizer, Description: "Token counting for ISL/OSL and exact-length prompts", Cardinality: One},
	{Name: CategoryRecordProcessor, Description: "Per-record metric computation", Cardinality: Many},
	{Name: CategoryAccumulator, Description: "Folds processed records into results", Cardinality: Many},
	{Name: CategoryDataExporter, Description: "Writes result files (JSON, CSV, JSONL, ...)", Cardinality: Many},
	{Name: CategoryConsoleExporter, Description: "Terminal tables and panels printed after a run", Cardinality: Many},
	{Name: CategoryUI, Description: "Progress display while a run executes", Cardinality: One},
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
