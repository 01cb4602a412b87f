package config

import (
	"strconv"
	"strings"
	"time"
)

// Sharding is the resolved Sharding group: how this process takes part in
// a run split over several aiperf processes (issue 17).
type Sharding struct {
	// Manager is --service-manager; Shards is --shards (the launcher side).
	Manager string
	Shards  int
	Exact   bool
	// AllowPartial makes a run that lost a shard exit 0.
	AllowPartial bool
	// Index and Count place this process in a sharded run (Count 1: not
	// sharded); Barrier is shard 0's start barrier URL, Listen the address
	// shard 0 serves it on.
	Index, Count int
	Barrier      string
	Listen       string
	Timeout      time.Duration
	// EmitResult writes the shard's framed result to stdout at the end.
	EmitResult bool
}

// Sharding returns the Sharding group.
func (c *RunConfig) Sharding() Sharding {
	return Sharding{
		Manager: c.ServiceManager, Shards: c.Shards, Exact: c.Exact, AllowPartial: c.AllowPartial,
		Index: c.ShardIndex, Count: c.ShardCount, Barrier: c.ShardBarrier, Listen: c.ShardBarrierListen,
		Timeout:    time.Duration(c.ShardBarrierTimeout * float64(time.Second)),
		EmitResult: c.ShardEmitResult,
	}
}

// Launches reports whether this command starts shards (a service manager
// other than inprocess) instead of profiling here.
func (s Sharding) Launches() bool { return s.Manager != "" && s.Manager != "inprocess" }

// KubernetesSettings are the flags the kubernetes service manager takes as
// its plugin settings.
func (c *RunConfig) KubernetesSettings() map[string]any {
	m := map[string]any{}
	if c.Image != "" {
		m["image"] = c.Image
	}
	if c.Namespace != "" {
		m["namespace"] = c.Namespace
	}
	if len(c.NodeSelector) > 0 {
		sel := map[string]any{}
		for _, kv := range c.NodeSelector {
			k, v, _ := strings.Cut(kv, "=")
			sel[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
		m["node_selector"] = sel
	}
	if c.Resources != "" {
		m["resources"] = c.Resources
	}
	if c.KeepJob {
		m["keep_job"] = true
	}
	return m
}

// validateSharding checks the Sharding group.
func (c *RunConfig) validateSharding(add adder) {
	s := c.Sharding()
	if s.Shards < 1 {
		add("--shards must be at least 1 (got %d)", s.Shards)
	}
	if s.Shards > 1 && !s.Launches() {
		add("--shards %d needs --service-manager local or kubernetes: the inprocess manager runs one process", s.Shards)
	}
	if s.Count < 1 {
		add("--shard-count must be at least 1 (got %d)", s.Count)
	}
	if s.Index < 0 || s.Index >= max(s.Count, 1) {
		add("--shard-index must be between 0 and --shard-count-1 (%d) (got %d)", max(s.Count, 1)-1, s.Index)
	}
	if s.Count > 1 && s.Barrier == "" {
		add("--shard-count %d needs --shard-barrier: the shards start together at shard 0's barrier", s.Count)
	}
	if s.Count > 1 && s.Launches() {
		add("--shard-count is set by a service manager: a shard cannot itself use --service-manager %s", s.Manager)
	}
	if !(c.ShardBarrierTimeout > 0) {
		add("--shard-barrier-timeout must be positive (got %v)", c.ShardBarrierTimeout)
	}
	if s.Manager == "kubernetes" && c.Image == "" {
		add("--service-manager kubernetes needs --image: the container image the shard pods run")
	}
	for _, kv := range c.NodeSelector {
		if k, _, ok := strings.Cut(kv, "="); !ok || strings.TrimSpace(k) == "" {
			add("--node-selector %q: want key=value", kv)
		}
	}
	if c.NumProfileRuns > 1 && (s.Launches() || s.Count > 1) {
		add("--num-profile-runs cannot be combined with sharding (--service-manager %s, --shard-count %d)", s.Manager, s.Count)
	}
	// Closed loop: every shard needs at least one user.
	n := max(s.Shards, s.Count)
	conc := 1 // the closed loop's default
	if c.Concurrency != nil {
		conc = *c.Concurrency
	}
	if n > 1 && c.Mode() == ModeConcurrency && conc < n {
		add("--concurrency %d cannot be split over %d shards: each needs at least one", conc, n)
	}
}

// launcherKeys are the options a launcher keeps for itself: they select or
// configure the service manager, are set per shard by it, or act on the
// merged result (the CI reports and plots of the whole run).
var launcherKeys = map[string]bool{
	keyServiceManager: true, keyShards: true, keyExact: true, keyAllowPartial: true, keyImage: true,
	keyNamespace: true, keyNodeSelector: true, keyResources: true, keyKeepJob: true,
	keyShardIndex: true, keyShardCount: true, keyShardBarrier: true, keyShardBarrierListen: true,
	keyShardBarrierTimeout: true, keyShardEmitResult: true, keyArtifactDir: true, keyUIType: true,
	keyJUnit: true, keyMarkdownSummary: true, keyGeneratePlots: true,
}

// ShardArgs is the `aiperf profile` command line (after "profile") every
// shard of a sharded run gets: the launcher's own arguments without the
// options that select or configure the service manager, the artifact
// directory and the UI (the service manager sets those per shard), with
// --random-seed fixed so every shard builds the same plan, and an explicit
// --service-manager inprocess --shards 1 so a config file or environment
// that names a manager does not make a shard launch shards itself.
func ShardArgs(args []string, seed int64) []string {
	out := make([]string, 0, len(args)+6)
	hasSeed := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "profile" && i == 0 {
			continue
		}
		if !strings.HasPrefix(a, "--") {
			out = append(out, a)
			continue
		}
		name, _, hasValue := strings.Cut(a[2:], "=")
		o := optionByName[name]
		if o == nil || !launcherKeys[o.key] {
			hasSeed = hasSeed || (o != nil && o.key == keyRandomSeed)
			out = append(out, a)
			continue
		}
		// Skip the option and, when it takes one, its separate value.
		if !hasValue && o.kind != kindBool && o.kind != kindCount && i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
			i++
		}
	}
	if !hasSeed {
		out = append(out, "--random-seed", strconv.FormatInt(seed, 10))
	}
	return append(out, "--service-manager", "inprocess", "--shards", "1")
}
