// Package hfhub fetches files of Hugging Face hub repos into the cache
// huggingface_hub uses, in pure Go (no cgo, no Python): Resolve turns a
// tokenizer name into the path of a local tokenizer.json (the hf tokenizer
// loads it), and Fetch, Download and ListTree serve any file of a model or
// dataset repo (the public datasets), streamed to disk and checked
// (SHA-256, the caller's format check) before it gets its name.
//
// # What a name can be
//
//   - An existing local file, of any name: returned as is (absolute).
//   - An existing local directory: its tokenizer.json, which must exist.
//   - Something that looks like a path (starts with "./", "../", "/" or "~",
//     or ends in ".json") but does not exist: an error, never a hub lookup.
//   - Otherwise a hub repo id, "name" or "org/name", validated like
//     huggingface_hub does ([A-Za-z0-9._-], at most one '/', no "--" or "..",
//     '-' and '.' neither first nor last, name at most 96 characters, no
//     ".git" suffix).
//
// # Cache
//
// The cache is the one huggingface_hub uses, so a cache filled by Python
// (transformers, huggingface-cli download) works here offline and the other
// way round:
//
//	<cache>/models--org--name/refs/<revision>                     commit hash
//	<cache>/models--org--name/snapshots/<commit>/tokenizer.json   the file
//	<cache>/models--org--name/blobs/<etag>                        (Python only)
//
// Python stores the file in blobs/ and links it from snapshots/; this package
// reads that layout and writes the file into snapshots/ directly (temp file
// + rename, so readers never see a partial file). A 40-hex revision is a
// commit and is looked up in snapshots/ without a ref.
//
// A cache hit makes no network request at all: unlike huggingface_hub, a
// branch such as "main" is not re-checked for new commits. Delete the
// models--org--name folder (or pass a commit as the revision) to refresh.
//
// # Download
//
// A miss downloads {endpoint}/{repo}/resolve/{revision}/tokenizer.json with
// "Authorization: Bearer <token>" when a token is set. Redirects are followed
// (the hub sends large files to a CDN) and the token is dropped on any
// redirect that leaves the endpoint's scheme://host:port. The commit comes
// from the X-Repo-Commit header (falling back to the revision name). The body
// must be JSON with a "model" object before it is published.
//
// # Dataset files
//
// A dataset repo's folder is datasets--org--name; a file is served by
// {endpoint}/datasets/{repo}/resolve/{revision}/{file} and a folder listed
// by {endpoint}/api/datasets/{repo}/tree/{revision}/{folder} (both escaped
// whole, pages followed by their Link rel="next"). Download streams a file
// through a temp file in blobs/ into snapshots/<commit>/<file>, hashing it
// against the listing's lfs.oid or the hub's X-Linked-Etag; WriteRef then
// names the commit in refs/<revision>, once every file a caller needs is
// there. Errors name the URL and the cache path; offline misses name the
// path looked for.
//
// # Environment (OptionsFromEnv)
//
//	HF_TOKEN, then HUGGING_FACE_HUB_TOKEN, then the file HF_TOKEN_PATH
//	    (default $HF_HOME/token, written by `huggingface-cli login`)
//	HF_HUB_CACHE, then HUGGINGFACE_HUB_CACHE, then $HF_HOME/hub, then
//	    $XDG_CACHE_HOME/huggingface/hub, then ~/.cache/huggingface/hub
//	HF_ENDPOINT (default https://huggingface.co; mirrors work)
//	HF_HUB_OFFLINE in {1,true,yes,on}: never touch the network
//
// Tokens never appear in errors, and Options prints with the token redacted.
package hfhub
