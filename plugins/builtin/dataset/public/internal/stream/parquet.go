package stream

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/parquet-go/parquet-go"
)

// Row is one Parquet row as generic values: strings, []byte or string for
// binary columns, int32/int64/float/bool scalars, map[string]any for
// structs (an HF Image is {"bytes", "path"}) and []any for lists; nil for
// nulls.
type Row = map[string]any

// Parquet calls fn with every row of each file in paths, in order. Rows are
// read a page at a time, never a whole file. Each row is a fresh map the
// callback may keep.
func Parquet(ctx context.Context, paths []string, fn func(row Row) error) error {
	_, err := ParquetUntil(ctx, paths, fn)
	return err
}

// ParquetUntil is Parquet that also reports whether fn stopped the read
// with ErrStop.
func ParquetUntil(ctx context.Context, paths []string, fn func(row Row) error) (stopped bool, err error) {
	for _, path := range paths {
		stop, err := parquetFile(ctx, path, fn)
		if err != nil || stop {
			return stop, err
		}
	}
	return false, nil
}

func parquetFile(ctx context.Context, path string, fn func(row Row) error) (stop bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return false, fmt.Errorf("open dataset: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return false, fmt.Errorf("open dataset: %w", err)
	}
	pf, err := openParquet(f, info.Size())
	if err != nil {
		return false, fmt.Errorf("%s: not a readable Parquet file: %w", path, err)
	}
	r := parquet.NewGenericReader[Row](pf, pf.Schema())
	defer r.Close()
	buf := make([]Row, 1) // one row at a time: a row may hold megabytes of media
	for i := 0; ; i++ {
		if i%cancelEvery == 0 && ctx.Err() != nil {
			return false, fmt.Errorf("reading %s: %w", path, ctx.Err())
		}
		buf[0] = Row{}
		n, err := readRow(r, buf)
		if n == 1 {
			if ferr := fn(buf[0]); ferr != nil {
				if errors.Is(ferr, ErrStop) {
					return true, nil
				}
				return false, fmt.Errorf("%s: row %d: %w", path, i, ferr)
			}
		}
		switch {
		case errors.Is(err, io.EOF):
			return false, nil
		case err != nil:
			return false, fmt.Errorf("%s: row %d: %w", path, i, err)
		case n == 0:
			return false, fmt.Errorf("%s: row %d: the reader returned no row", path, i)
		}
	}
}

// openParquet and readRow turn a panic of the Parquet library on a
// malformed file into an error: bad input must never crash a run.
func openParquet(f *os.File, size int64) (pf *parquet.File, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("malformed file: %v", p)
		}
	}()
	return parquet.OpenFile(f, size)
}

func readRow(r *parquet.GenericReader[Row], buf []Row) (n int, err error) {
	defer func() {
		if p := recover(); p != nil {
			n, err = 0, fmt.Errorf("malformed row: %v", p)
		}
	}()
	return r.Read(buf)
}

// IsParquet checks the magic bytes at both ends of a Parquet file, the
// check a download passes before it is cached.
func IsParquet(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return err
	}
	if info.Size() < 12 {
		return fmt.Errorf("%d bytes is too short for a Parquet file", info.Size())
	}
	var head, tail [4]byte
	if _, err := f.ReadAt(head[:], 0); err != nil {
		return err
	}
	if _, err := f.ReadAt(tail[:], info.Size()-4); err != nil {
		return err
	}
	if string(head[:]) != "PAR1" || string(tail[:]) != "PAR1" {
		return errors.New("not a Parquet file (no PAR1 magic bytes)")
	}
	return nil
}
