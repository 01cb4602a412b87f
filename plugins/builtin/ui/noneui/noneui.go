// Package noneui is the "none" UI: a headless run shows no progress (the
// default when stdout is not a terminal).
package noneui

import (
	"context"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin name of this UI.
const Name = "none"

// UI shows nothing.
type UI struct{}

var _ sdk.UI = (*UI)(nil)

// New returns the headless UI.
func New() *UI { return &UI{} }

// Start does nothing; it never polls src.
func (*UI) Start(context.Context, sdk.ProgressSource) {}

// Stop does nothing.
func (*UI) Stop() {}
