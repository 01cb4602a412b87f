// Package customloader groups the custom_dataset_loader plugins, one
// subpackage per --custom-dataset-type format (mooncake_trace, single_turn,
// multi_turn). The custom dataset composer (package custom) picks one of them
// by name or by CanLoad auto-detection.
package customloader
