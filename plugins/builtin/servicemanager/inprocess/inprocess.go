// Package inprocess is the default service_manager plugin: the profile runs
// in the CLI's own process, as it always has.
package inprocess

import (
	"context"
	"errors"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin's registered name.
const Name = "inprocess"

// Manager runs nothing itself: the CLI profiles in its own process.
type Manager struct{}

var _ sdk.ServiceManager = (*Manager)(nil)

// New returns the manager.
func New() *Manager { return &Manager{} }

// RunShards is never called for this manager: the CLI profiles in its own
// process unless --service-manager names another (config.Sharding.Launches).
func (*Manager) RunShards(context.Context, sdk.ShardJob) ([]sdk.ShardReport, error) {
	return nil, errors.New("the inprocess service manager runs the profile in this process; it starts no shards (use --service-manager local or kubernetes)")
}
