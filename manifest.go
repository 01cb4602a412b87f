// Package aiperf holds the embedded manifest of built-in plugins.
package aiperf

import _ "embed"

// BuiltinManifest is plugins.yaml, the declaration of every built-in plugin.
//
//go:embed plugins.yaml
var BuiltinManifest []byte
