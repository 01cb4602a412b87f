package sdk

// CategoryDatasetSampler is the dataset_sampler category's name.
const CategoryDatasetSampler = "dataset_sampler"

// DatasetSamplers is the dataset_sampler category: which dataset session
// each credit sends (--dataset-sampling-strategy). Builtin only: it is asked
// on the timed path.
var DatasetSamplers = define[DatasetSampler](Category{Name: CategoryDatasetSampler, Cardinality: One, Order: 90,
	Description: "Which dataset session each credit sends (--dataset-sampling-strategy)", BuiltinReason: timedWindow})

// DatasetSampler decides which dataset session each credit of a phase sends.
type DatasetSampler interface {
	// Order returns, for a phase over n sessions (n > 0) and the run's seed,
	// the session index of each credit index. The function is called from
	// many goroutines, in any order, and must give the same session for the
	// same credit (trace replay pairs credit i with entry i).
	Order(n int, seed int64) func(credit int) int
}
