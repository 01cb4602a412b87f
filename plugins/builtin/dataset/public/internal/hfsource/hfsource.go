// Package hfsource finds the Parquet files of a Hugging Face hub dataset
// split: the hub's Parquet conversion (branch refs/convert/parquet, files
// {config}/{split}/NNNN.parquet, or {config}/partial-{split}/ for datasets
// the converter cut short), listed with the hub's tree API, downloaded once
// into the Hugging Face cache and read from there ever after, offline
// included. A Python cache filled by `huggingface-cli download` works too.
package hfsource

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/aiperf-go/aiperf/plugins/builtin/dataset/public/internal/stream"
	"github.com/aiperf-go/aiperf/plugins/builtin/internal/hfhub"
)

// ParquetRevision is the hub branch holding the Parquet conversion of every
// dataset.
const ParquetRevision = "refs/convert/parquet"

// Split names a split of a hub dataset.
type Split struct {
	Dataset string // repo id, "org/name"
	Config  string // "default" unless the dataset has named configs
	Split   string // "train", "test", ...
}

// dirs are the folders a split's files may be in, in preference order.
func (s Split) dirs() []string {
	return []string{s.Config + "/" + s.Split, s.Config + "/partial-" + s.Split}
}

// FillCommand is the command that fills the cache for s (what an offline
// run with a cold cache tells the user to run).
func (s Split) FillCommand() string {
	return fmt.Sprintf("huggingface-cli download --repo-type dataset %s --revision %s --include '%s/%s/*'",
		s.Dataset, ParquetRevision, s.Config, s.Split)
}

// ParquetFiles returns the local paths of s's Parquet files, in name
// order: from the cache when the branch's ref and files are there (no
// network at all), else listed and downloaded (unless o.Offline), every
// file checked (size, SHA-256, Parquet magic) before it is cached and the
// ref written last, so a cached ref always means complete files.
func ParquetFiles(ctx context.Context, s Split, o hfhub.Options) ([]string, error) {
	repo := hfhub.DatasetRepo(s.Dataset)
	o.Revision = ParquetRevision
	if o.CacheDir == "" {
		o.CacheDir = hfhub.OptionsFromEnv(os.Getenv).CacheDir
	}
	if files, ok := cached(o.CacheDir, repo, s); ok {
		return files, nil
	}
	if o.Offline {
		return nil, fmt.Errorf("dataset %s (config %s, split %s) is not in the Hugging Face cache (looked for %s) and HF_HUB_OFFLINE is set; fill the cache with: %s",
			s.Dataset, s.Config, s.Split, filepath.Join(hfhub.SnapshotPath(o.CacheDir, repo, "<commit of "+ParquetRevision+">", s.Config), s.Split, "*.parquet"), s.FillCommand())
	}
	entries, dir, err := list(ctx, repo, s, o)
	if err != nil {
		return nil, err
	}
	var paths []string
	commit := ""
	for _, e := range entries {
		check := hfhub.FileCheck{Verify: stream.IsParquet}
		if e.LFS != nil {
			check.SHA256 = e.LFS.OID
		}
		fo := o
		if commit != "" {
			// Later files come from the commit the first came from, so a
			// conversion updated mid-download cannot mix two versions.
			fo.Revision = commit
		}
		p, c, err := hfhub.Download(ctx, repo, e.Path, fo, check)
		if err != nil {
			return nil, err
		}
		commit = c
		paths = append(paths, p)
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("dataset %s: the hub lists no Parquet files in %s of %s", s.Dataset, dir, ParquetRevision)
	}
	if err := hfhub.WriteRef(o.CacheDir, repo, ParquetRevision, commit); err != nil {
		return nil, fmt.Errorf("dataset %s: caching in %s: %w", s.Dataset, o.CacheDir, err)
	}
	return paths, nil
}

// list finds the split's folder on the branch and its Parquet files.
func list(ctx context.Context, repo hfhub.Repo, s Split, o hfhub.Options) ([]hfhub.TreeEntry, string, error) {
	var firstErr error
	for _, dir := range s.dirs() {
		entries, err := hfhub.ListTree(ctx, repo, dir, o)
		if err != nil {
			if errors.Is(err, hfhub.ErrNotFound) {
				firstErr = cmpErr(firstErr, err)
				continue
			}
			return nil, "", err
		}
		var files []hfhub.TreeEntry
		for _, e := range entries {
			if e.Type == "file" && strings.HasSuffix(e.Path, ".parquet") && path.Dir(e.Path) == dir {
				files = append(files, e)
			}
		}
		if len(files) > 0 {
			sort.Slice(files, func(i, j int) bool { return files[i].Path < files[j].Path })
			return files, dir, nil
		}
	}
	if firstErr == nil {
		firstErr = errors.New("no Parquet files")
	}
	return nil, "", fmt.Errorf("dataset %s has no Parquet conversion of config %q split %q (looked in %s and %s of %s): %w",
		s.Dataset, s.Config, s.Split, s.dirs()[0], s.dirs()[1], ParquetRevision, firstErr)
}

func cmpErr(first, err error) error {
	if first == nil {
		return err
	}
	return first
}

// cached returns the split's files from the cache when the branch's ref
// names a snapshot that holds them.
func cached(cacheDir string, repo hfhub.Repo, s Split) ([]string, bool) {
	commit, ok := hfhub.CachedCommit(cacheDir, repo, ParquetRevision)
	if !ok {
		return nil, false
	}
	for _, dir := range s.dirs() {
		matches, _ := filepath.Glob(filepath.Join(hfhub.SnapshotPath(cacheDir, repo, commit, dir), "*.parquet"))
		var files []string
		for _, m := range matches {
			if info, err := os.Stat(m); err == nil && info.Mode().IsRegular() {
				files = append(files, m)
			}
		}
		if len(files) > 0 {
			sort.Strings(files)
			return files, true
		}
	}
	return nil, false
}

// HubOptions are the hub options a loader uses: override when a test set
// one, else the environment's (HF_TOKEN, HF_HUB_CACHE/HF_HOME,
// HF_ENDPOINT, HF_HUB_OFFLINE), the rules the tokenizer download follows.
func HubOptions(override *hfhub.Options) hfhub.Options {
	if override != nil {
		return *override
	}
	return hfhub.OptionsFromEnv(os.Getenv)
}

// Rows streams the rows of the split s names, from the cache or the hub.
// Without lazy every file of the split is downloaded first (AIPerf loads
// such datasets whole). With lazy (AIPerf's streamed datasets, read only up
// to a cap) files are downloaded one at a time, in order, only while fn
// wants more rows: the cached files are read first, then the missing ones
// fetched (unless offline, when what the cache holds is all there is).
func Rows(ctx context.Context, s Split, o hfhub.Options, lazy bool, fn func(row stream.Row) error) error {
	if !lazy {
		files, err := ParquetFiles(ctx, s, o)
		if err != nil {
			return err
		}
		return stream.Parquet(ctx, files, fn)
	}
	repo := hfhub.DatasetRepo(s.Dataset)
	o.Revision = ParquetRevision
	if o.CacheDir == "" {
		o.CacheDir = hfhub.OptionsFromEnv(os.Getenv).CacheDir
	}
	files, ok := cached(o.CacheDir, repo, s)
	if ok {
		stopped, err := stream.ParquetUntil(ctx, files, fn)
		if err != nil || stopped {
			return err
		}
	}
	if o.Offline {
		if ok {
			return nil // the cache holds fewer rows than the cap: use them
		}
		_, err := ParquetFiles(ctx, s, o) // the offline, cold-cache error
		return err
	}
	entries, _, err := list(ctx, repo, s, o)
	if err != nil {
		return err
	}
	commit, _ := hfhub.CachedCommit(o.CacheDir, repo, ParquetRevision)
	have := map[string]bool{}
	for _, f := range files {
		have[filepath.Base(f)] = true
	}
	for _, e := range entries {
		if ok && have[path.Base(e.Path)] {
			continue
		}
		check := hfhub.FileCheck{Verify: stream.IsParquet}
		if e.LFS != nil {
			check.SHA256 = e.LFS.OID
		}
		fo := o
		if commit != "" {
			fo.Revision = commit
		}
		p, c, err := hfhub.Download(ctx, repo, e.Path, fo, check)
		if err != nil {
			return err
		}
		if commit == "" {
			// The ref is written once its first file is whole: a later
			// run reads what is cached and fetches the rest.
			if err := hfhub.WriteRef(o.CacheDir, repo, ParquetRevision, c); err != nil {
				return fmt.Errorf("dataset %s: caching in %s: %w", s.Dataset, o.CacheDir, err)
			}
		}
		commit = c
		stopped, err := stream.ParquetUntil(ctx, []string{p}, fn)
		if err != nil || stopped {
			return err
		}
	}
	return nil
}
