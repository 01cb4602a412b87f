package wasmloader

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/aiperf-go/aiperf/plugin-sdk/wasmguest"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
)

// moduleKey identifies a compiled module: the same bytes under another
// memory cap need their own runtime, since the cap is a runtime setting.
type moduleKey struct {
	digest [32]byte
	memMB  int
}

// module is one compiled, checked module in its own runtime (with WASI).
type module struct {
	rt       wazero.Runtime
	compiled wazero.CompiledModule
}

// module returns the compiled module for key, compiling it on first use.
// Runtimes share one compilation cache, so the machine code is built once
// per digest and, with a cache directory, once across runs.
func (l *Loader) module(ctx context.Context, key moduleKey, bin []byte) (*module, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed {
		return nil, fmt.Errorf("wasm loader is closed")
	}
	if m := l.modules[key]; m != nil {
		return m, nil
	}
	if l.cache == nil {
		l.cache = l.newCache()
	}
	cfg := wazero.NewRuntimeConfig().
		WithCompilationCache(l.cache).
		WithMemoryLimitPages(uint32(key.memMB) * 16). // 64 KiB pages
		WithCloseOnContextDone(true)
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	compiled, err := rt.CompileModule(ctx, bin)
	if err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("compile wasm module (memory cap %d MiB): %w", key.memMB, err)
	}
	if err := checkModule(compiled); err != nil {
		_ = rt.Close(ctx)
		return nil, err
	}
	if _, err := wasi_snapshot_preview1.Instantiate(ctx, rt); err != nil {
		_ = rt.Close(ctx)
		return nil, fmt.Errorf("instantiate WASI: %w", err)
	}
	m := &module{rt: rt, compiled: compiled}
	l.modules[key] = m
	return m, nil
}

func (l *Loader) newCache() wazero.CompilationCache {
	if dir := l.opts.CacheDir; dir != "" {
		c, err := wazero.NewCompilationCacheWithDir(dir)
		if err == nil {
			return c
		}
		l.log.Warn("wasm compilation cache unavailable; compiling in memory only", "dir", dir, "err", err)
	}
	return wazero.NewCompilationCache()
}

// checkModule refuses modules that import anything beyond WASI preview 1
// (the sandbox's only host surface) or lack the ABI's exports.
func checkModule(c wazero.CompiledModule) error {
	var bad []string
	for _, f := range c.ImportedFunctions() {
		if mod, name, _ := f.Import(); mod != wasi_snapshot_preview1.ModuleName {
			bad = append(bad, fmt.Sprintf("%s.%s", mod, name))
		}
	}
	for _, m := range c.ImportedMemories() {
		mod, name, _ := m.Import()
		bad = append(bad, fmt.Sprintf("%s.%s (memory)", mod, name))
	}
	if len(bad) > 0 {
		slices.Sort(bad)
		return fmt.Errorf("module refused: it imports %s; only %s is allowed", strings.Join(bad, ", "), wasi_snapshot_preview1.ModuleName)
	}
	exports := c.ExportedFunctions()
	want := []struct {
		name            string
		params, results []api.ValueType
	}{
		{wasmguest.ExportAlloc, []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}},
		{wasmguest.ExportFree, []api.ValueType{api.ValueTypeI32}, nil},
		{wasmguest.ExportCall, []api.ValueType{api.ValueTypeI32, api.ValueTypeI32, api.ValueTypeI32}, []api.ValueType{api.ValueTypeI64}},
	}
	for _, w := range want {
		def, ok := exports[w.name]
		if !ok {
			return fmt.Errorf("module refused: missing export %s (build the guest with plugin-sdk/wasmguest)", w.name)
		}
		if !slices.Equal(def.ParamTypes(), w.params) || !slices.Equal(def.ResultTypes(), w.results) {
			return fmt.Errorf("module refused: export %s has signature %s, want %s",
				w.name, signature(def.ParamTypes(), def.ResultTypes()), signature(w.params, w.results))
		}
	}
	if _, ok := exports[wasmguest.ExportInitialize]; !ok {
		return fmt.Errorf("module refused: no %s export; build a reactor with GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared", wasmguest.ExportInitialize)
	}
	if _, ok := c.ExportedMemories()["memory"]; !ok {
		return fmt.Errorf("module refused: no exported memory")
	}
	return nil
}

func signature(params, results []api.ValueType) string {
	names := func(ts []api.ValueType) string {
		out := make([]string, len(ts))
		for i, t := range ts {
			out[i] = api.ValueTypeName(t)
		}
		return "(" + strings.Join(out, ", ") + ")"
	}
	return names(params) + " -> " + names(results)
}
