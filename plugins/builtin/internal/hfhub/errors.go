package hfhub

import "errors"

// Error kinds, for errors.Is. The messages of the errors Resolve, Fetch,
// Download and ListTree return say what went wrong and what to do; these
// only classify them (the kind texts predate the dataset files).
var (
	// ErrNotExist: a local path, or a local directory's tokenizer.json, is missing.
	ErrNotExist = errors.New("tokenizer file does not exist")
	// ErrInvalidName: the name is neither a local path nor a valid repo id.
	ErrInvalidName = errors.New("invalid tokenizer name")
	// ErrNotCached: offline and the cache does not hold the tokenizer.
	ErrNotCached = errors.New("tokenizer not in the Hugging Face cache")
	// ErrGated: the hub refused access (401/403): gated, private or bad token.
	ErrGated = errors.New("tokenizer repo is gated or private")
	// ErrNotFound: the hub has no such repo, revision or tokenizer.json (404).
	ErrNotFound = errors.New("tokenizer not found on the hub")
	// ErrNotTokenizer: the downloaded body is not a tokenizer.json.
	ErrNotTokenizer = errors.New("not a tokenizer.json")
	// ErrDownload: the download failed (network, HTTP status, cache write).
	ErrDownload = errors.New("tokenizer download failed")
	// ErrCorrupt: a downloaded file failed its checks (checksum, format)
	// and was not published.
	ErrCorrupt = errors.New("downloaded file failed verification")
)

// hubError carries a complete user-facing message, its kind and, when there
// is one, the underlying cause (network error, context error).
type hubError struct {
	kind  error
	msg   string
	cause error
}

func (e *hubError) Error() string { return e.msg }

func (e *hubError) Unwrap() []error {
	if e.cause == nil {
		return []error{e.kind}
	}
	return []error{e.kind, e.cause}
}

func newError(kind error, msg string, cause error) error {
	return &hubError{kind: kind, msg: msg, cause: cause}
}
