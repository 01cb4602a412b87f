package config

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"gopkg.in/yaml.v3"
)

// Environment variables: AIPERF_<KEY> with the key upper-cased (e.g.
// AIPERF_MODEL_NAMES, AIPERF_ISL). "__" separates nesting levels because
// keys themselves contain "_". AIPerf's own AIPERF_CONFIG_USER_FILE names
// the config file.
const (
	envPrefix        = "AIPERF_"
	envNestSeparator = "__"
	envAIPerfCfgFile = "AIPERF_CONFIG_USER_FILE"
)

// readConfigFile parses a YAML (or JSON) config file into canonical keys
// with typed values. Errors name the file and, where known, the line.
func readConfigFile(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("--user-config-file %q: %w", path, err)
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("--user-config-file %q: %w", path, err)
	}
	out := map[string]any{}
	if len(doc.Content) == 0 {
		return out, nil // empty file: nothing to override
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("--user-config-file %q: line %d: the top level must be a mapping of option keys", path, root.Line)
	}
	seenFrom := map[string]string{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		kn, vn := root.Content[i], root.Content[i+1]
		where := fmt.Sprintf("--user-config-file %q: line %d", path, kn.Line)
		o, ok := optionByAnyKey[kn.Value]
		if !ok || o.key == keyConfigFile {
			msg := fmt.Sprintf("%s: unknown key %q", where, kn.Value)
			if s := suggestKey(kn.Value); s != "" && o == nil {
				msg += fmt.Sprintf(" (did you mean %q?)", s)
			}
			return nil, errors.New(msg)
		}
		if prev, dup := seenFrom[o.key]; dup {
			return nil, fmt.Errorf("%s: %q and %q both set %s", where, prev, kn.Value, o.key)
		}
		seenFrom[o.key] = kn.Value
		var raw any
		if err := vn.Decode(&raw); err != nil {
			return nil, fmt.Errorf("%s: %s: %w", where, kn.Value, err)
		}
		if raw == nil {
			continue // `key:` with no value leaves the option unset
		}
		v, err := coerce(o, raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", where, kn.Value, err)
		}
		out[o.key] = v
	}
	return out, nil
}

// readEnv maps AIPERF_* variables that name an option (or an alias) to
// canonical keys. Other AIPERF_* variables are AIPerf runtime settings and
// are ignored; empty values count as unset.
func readEnv(env []string) (map[string]any, error) {
	out := map[string]any{}
	seenFrom := map[string]string{}
	for _, kv := range env {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, envPrefix) || val == "" {
			continue
		}
		key := strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, envPrefix), envNestSeparator, "."))
		o, ok := optionByAnyKey[key]
		if !ok || o.key == keyConfigFile {
			continue
		}
		if prev, dup := seenFrom[o.key]; dup {
			return nil, fmt.Errorf("environment variables %s and %s both set %s", prev, name, o.key)
		}
		seenFrom[o.key] = name
		v, err := coerce(o, val)
		if err != nil {
			return nil, fmt.Errorf("environment variable %s: %w", name, err)
		}
		out[o.key] = v
	}
	return out, nil
}

// envConfigFile returns the config file named by the environment, if any.
func envConfigFile(env []string) string {
	var ours, aiperf string
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		switch name {
		case envPrefix + strings.ToUpper(keyConfigFile):
			ours = val
		case envAIPerfCfgFile:
			aiperf = val
		}
	}
	if ours != "" {
		return ours
	}
	return aiperf
}

// suggestKey returns the known key closest to an unknown one (edit distance
// at most 2), for "did you mean" hints.
func suggestKey(k string) string {
	best, bestD := "", 3
	for cand := range optionByAnyKey {
		if d := editDistance(k, cand); d < bestD || (d == bestD && cand < best) {
			best, bestD = cand, d
		}
	}
	if o := optionByAnyKey[best]; o != nil && best != "" {
		return o.key
	}
	return ""
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
