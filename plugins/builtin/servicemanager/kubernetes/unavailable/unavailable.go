// Package unavailable is the kubernetes service_manager of a binary built
// without the `kubernetes` build tag: client-go adds about 48 MB to the
// binary (docs/KUBERNETES.md), which a shard in a pod and most users never
// need. It takes the same settings, so a typo is still an error, and
// refuses to run with the way to a binary that can.
package unavailable

import (
	"context"
	"errors"

	sdk "github.com/aiperf-go/aiperf/plugin-sdk"
)

// Name is the plugin's registered name (the kubernetes manager's).
const Name = "kubernetes"

// Settings are the kubernetes manager's settings (its package aliases
// them): image, namespace, node_selector, resources, keep_job, kubeconfig
// and context.
type Settings struct {
	Image        string            `json:"image"`
	Namespace    string            `json:"namespace"`
	NodeSelector map[string]string `json:"node_selector"`
	Resources    string            `json:"resources"`
	KeepJob      bool              `json:"keep_job"`
	Kubeconfig   string            `json:"kubeconfig"`
	Context      string            `json:"context"`
}

// ErrNotBuiltIn says how to get a binary with Kubernetes support.
var ErrNotBuiltIn = errors.New("this aiperf binary was built without Kubernetes support (client-go is left out to keep the binary small): " +
	"build it with `make build` or `go build -tags kubernetes ./cmd/aiperf`, or use --service-manager local")

// Manager refuses every run.
type Manager struct{ cfg Settings }

var (
	_ sdk.ServiceManager = (*Manager)(nil)
	_ sdk.Configurable   = (*Manager)(nil)
	_ sdk.Validator      = (*Manager)(nil)
)

// New returns the manager.
func New() *Manager { return &Manager{} }

// PluginConfig is the settings struct the core decodes into.
func (m *Manager) PluginConfig() any { return &m.cfg }

// Validate fails before anything runs.
func (m *Manager) Validate() error { return ErrNotBuiltIn }

// RunShards fails: there is no client to start the Job with.
func (m *Manager) RunShards(context.Context, sdk.ShardJob) ([]sdk.ShardReport, error) {
	return nil, ErrNotBuiltIn
}
