package hfhub

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
)

// Repo types whose files this package fetches.
const (
	RepoModel   = "model"
	RepoDataset = "dataset"
)

// Repo names a hub repository: its type and its id ("org/name").
type Repo struct {
	Type string // RepoModel ("" means model) or RepoDataset
	ID   string
}

// ModelRepo is the model repo id.
func ModelRepo(id string) Repo { return Repo{Type: RepoModel, ID: id} }

// DatasetRepo is the dataset repo id.
func DatasetRepo(id string) Repo { return Repo{Type: RepoDataset, ID: id} }

func (r Repo) kind() string {
	if r.Type == "" {
		return RepoModel
	}
	return r.Type
}

// String is "dataset org/name", for messages.
func (r Repo) String() string { return r.kind() + " " + r.ID }

// FolderName is huggingface_hub's repo_folder_name: "datasets--org--name".
func (r Repo) FolderName() string {
	return r.kind() + "s--" + strings.ReplaceAll(r.ID, "/", "--")
}

// urlPath is the repo's path on the hub: "org/name" for a model,
// "datasets/org/name" for a dataset.
func (r Repo) urlPath() string {
	if r.kind() == RepoModel {
		return r.ID
	}
	return r.kind() + "s/" + r.ID
}

// validate checks the type and the id; both become paths.
func (r Repo) validate() error {
	if k := r.kind(); k != RepoModel && k != RepoDataset {
		return fmt.Errorf("repo type %q is not %s or %s", r.Type, RepoModel, RepoDataset)
	}
	return ValidateRepoID(r.ID)
}

// Dir is the repo's folder in the cache.
func (r Repo) Dir(cacheDir string) string { return filepath.Join(cacheDir, r.FolderName()) }

// FileURL is where the hub serves file of repo at revision:
// {endpoint}/[datasets/]{repo}/resolve/{revision}/{file}, the revision
// escaped whole as huggingface_hub does ("refs/convert/parquet" becomes
// "refs%2Fconvert%2Fparquet") and each segment of file escaped.
func FileURL(endpoint string, repo Repo, revision, file string) string {
	return strings.TrimRight(endpoint, "/") + "/" + repo.urlPath() + "/resolve/" + url.PathEscape(revision) + "/" + escapePath(file)
}

// escapePath escapes each segment of a slash-separated path.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// validateFilePath refuses repo file paths that could leave a snapshot
// folder once joined to it.
func validateFilePath(p string) error {
	if p == "" || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") {
		return fmt.Errorf("file path %q must be relative and use '/'", p)
	}
	for seg := range strings.SplitSeq(p, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return fmt.Errorf("file path %q has an empty, '.' or '..' segment", p)
		}
	}
	return nil
}
