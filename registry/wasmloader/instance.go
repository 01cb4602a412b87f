package wasmloader

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"

	"github.com/aiperf-go/aiperf/plugin-sdk/wasmguest"
	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/sys"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// instanceConfig is the sandbox every instance of a plugin gets.
type instanceConfig struct {
	readDirs []string
	log      *slog.Logger
	memMB    int
}

// instance is one module instance; it serves one call at a time.
type instance struct {
	mod               api.Module
	mem               api.Memory
	alloc, free, call api.Function
	stdout, stderr    *lineLogger

	reqPtr, reqCap uint32   // guest buffer the requests are written into
	buf            []byte   // marshalled request, reused
	stack          []uint64 // call arguments/results, reused
	setupGen       uint64   // last setup generation this instance has applied
}

func newInstance(ctx context.Context, m *module, plugin string, cfg instanceConfig) (*instance, error) {
	in := &instance{
		stdout: &lineLogger{log: cfg.log, plugin: plugin, stream: "stdout", level: slog.LevelInfo},
		stderr: &lineLogger{log: cfg.log, plugin: plugin, stream: "stderr", level: slog.LevelWarn},
		stack:  make([]uint64, 3),
	}
	// No args, no env, and no filesystem unless directories were granted:
	// an empty FSConfig has no preopens at all.
	mc := wazero.NewModuleConfig().
		WithName("").
		WithStartFunctions(wasmguest.ExportInitialize).
		WithStdout(in.stdout).
		WithStderr(in.stderr).
		WithSysWalltime().
		WithSysNanotime()
	if len(cfg.readDirs) > 0 {
		fs := wazero.NewFSConfig()
		for _, d := range cfg.readDirs {
			fs = fs.WithReadOnlyDirMount(d, d)
		}
		mc = mc.WithFSConfig(fs)
	}
	mod, err := m.rt.InstantiateModule(ctx, m.compiled, mc)
	if err != nil {
		return nil, fmt.Errorf("instantiate: %w", in.explain(err, cfg.memMB))
	}
	in.mod, in.mem = mod, mod.Memory()
	in.alloc = mod.ExportedFunction(wasmguest.ExportAlloc)
	in.free = mod.ExportedFunction(wasmguest.ExportFree)
	in.call = mod.ExportedFunction(wasmguest.ExportCall)
	return in, nil
}

func (in *instance) close() {
	_ = in.mod.Close(context.Background())
	in.stdout.flush()
	in.stderr.flush()
}

// brokenError marks failures after which the instance must not be reused:
// the guest trapped, exited, overran its deadline or answered garbage.
type brokenError struct{ err error }

func (e *brokenError) Error() string { return e.err.Error() }
func (e *brokenError) Unwrap() error { return e.err }

func broken(err error) error { return &brokenError{err: err} }

// invoke runs method m with req and decodes the response into resp (nil
// to ignore it). A plugin's own error comes back as a plain error; every
// other failure is a *brokenError.
func (in *instance) invoke(ctx context.Context, m wasmguest.Method, req, resp proto.Message, memMB int) error {
	var err error
	if in.buf, err = (proto.MarshalOptions{}).MarshalAppend(in.buf[:0], req); err != nil {
		return fmt.Errorf("encode request: %w", err)
	}
	n := uint32(len(in.buf))
	if n > in.reqCap {
		if err := in.grow(ctx, n, memMB); err != nil {
			return err
		}
	}
	if n > 0 && !in.mem.Write(in.reqPtr, in.buf) {
		return broken(fmt.Errorf("request buffer %#x+%d is outside guest memory", in.reqPtr, n))
	}
	in.stack[0], in.stack[1], in.stack[2] = uint64(m), uint64(in.reqPtr), uint64(n)
	if err := in.call.CallWithStack(ctx, in.stack); err != nil {
		return broken(in.explain(err, memMB))
	}
	res := in.stack[0]
	ptr, size := uint32(res>>32), uint32(res)
	view, ok := in.mem.Read(ptr, size)
	if !ok {
		return broken(fmt.Errorf("result %#x+%d is outside guest memory", ptr, size))
	}
	payload, pluginErr, err := decodeResult(view)
	if err != nil {
		return broken(fmt.Errorf("malformed result: %w", err))
	}
	if pluginErr != "" {
		return errors.New(pluginErr)
	}
	if resp != nil {
		// Unmarshal copies out of guest memory before the next call reuses it.
		if err := proto.Unmarshal(payload, resp); err != nil {
			return broken(fmt.Errorf("malformed %s response: %w", m, err))
		}
	}
	return nil
}

// grow replaces the request buffer with one of at least n bytes (doubling,
// so a plugin settles on one buffer after a few calls).
func (in *instance) grow(ctx context.Context, n uint32, memMB int) error {
	if in.reqPtr != 0 {
		if _, err := in.free.Call(ctx, uint64(in.reqPtr)); err != nil {
			return broken(in.explain(err, memMB))
		}
		in.reqPtr, in.reqCap = 0, 0
	}
	size := max(in.reqCap, 4096)
	for size < n {
		size *= 2
	}
	res, err := in.alloc.Call(ctx, uint64(size))
	if err != nil {
		return broken(fmt.Errorf("allocate %d-byte request buffer: %w", size, in.explain(err, memMB)))
	}
	in.reqPtr, in.reqCap = uint32(res[0]), size
	return nil
}

// decodeResult reads a WasmResult {bytes payload = 1; string error = 2}
// straight from guest memory, without copying the payload.
func decodeResult(b []byte) (payload []byte, pluginErr string, err error) {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil, "", protowire.ParseError(n)
		}
		b = b[n:]
		if typ != protowire.BytesType {
			n = protowire.ConsumeFieldValue(num, typ, b)
			if n < 0 {
				return nil, "", protowire.ParseError(n)
			}
			b = b[n:]
			continue
		}
		v, n := protowire.ConsumeBytes(b)
		if n < 0 {
			return nil, "", protowire.ParseError(n)
		}
		b = b[n:]
		switch num {
		case 1:
			payload = v
		case 2:
			pluginErr = string(v)
		}
	}
	return payload, pluginErr, nil
}

// explain turns a failed guest call into a message for users: exits and
// traps get their cause, and a trap near the memory cap (how a Go guest
// dies when an allocation fails) says so. The wasm stack trace goes to the
// debug log only.
func (in *instance) explain(err error, memMB int) error {
	var exit *sys.ExitError
	if errors.As(err, &exit) {
		switch code := exit.ExitCode(); code {
		case sys.ExitCodeDeadlineExceeded, sys.ExitCodeContextCanceled:
			return err
		default:
			return fmt.Errorf("guest exited with code %d (its stderr is in the log)", code)
		}
	}
	in.stderr.log.Debug("wasm plugin trapped", "plugin", in.stderr.plugin, "err", err)
	msg, _, _ := strings.Cut(err.Error(), "\nwasm stack trace:")
	if in.mem != nil && uint64(in.mem.Size())+arenaBytes > uint64(memMB)<<20 {
		return fmt.Errorf("guest ran out of its %d MiB memory cap (%s)", memMB, msg)
	}
	return fmt.Errorf("guest trapped: %s (its stderr is in the log)", msg)
}

// arenaBytes is how much a Go wasm guest grows its heap at a time: memory
// within one arena of the cap means the last growth was refused.
const arenaBytes = 4 << 20
