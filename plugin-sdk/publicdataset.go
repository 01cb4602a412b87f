package sdk

import "context"

// CategoryPublicDataset is the public_dataset_loader category's name
// (AIPerf's).
const CategoryPublicDataset = "public_dataset_loader"

// PublicDatasetLoaders is the public_dataset_loader category: the datasets
// --public-dataset names (ShareGPT, Hugging Face hub datasets, ...). Builtin
// only: the plugin protocol has no call for it.
var PublicDatasetLoaders = define[PublicDatasetLoader](Category{Name: CategoryPublicDataset, Cardinality: One, Order: 85,
	Description: "Downloads, caches and reads a public dataset (--public-dataset)", BuiltinReason: noRPC})

// PublicDatasetLoader fetches a public dataset (from its cache when it
// holds it) and turns it into conversations. It runs before the first
// request: an error, or a dataset that is not valid, stops the run with
// nothing sent.
type PublicDatasetLoader interface {
	LoadPublic(ctx context.Context, opts DatasetOptions) ([]Conversation, error)
}

// PublicLoaderUser is implemented by composers that read the public
// dataset --public-dataset selects. Before Compose the core hands them the
// dataset's name and a source of its loader, built and started only when
// called.
type PublicLoaderUser interface {
	UsePublicLoader(name string, source func() (PublicDatasetLoader, error))
}
