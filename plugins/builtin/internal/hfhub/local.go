package hfhub

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// TokenizerFile is the file a hub repo (or a local directory) provides.
const TokenizerFile = "tokenizer.json"

// resolveLocal handles names that are local paths. ok is false when name is
// not a path and should be treated as a hub repo id.
func resolveLocal(name string) (path string, ok bool, err error) {
	p := expandHome(name, os.Getenv)
	info, statErr := os.Stat(p)
	if statErr != nil {
		if looksLikePath(name) {
			return "", true, newError(ErrNotExist, fmt.Sprintf("tokenizer file %s does not exist", name), statErr)
		}
		return "", false, nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", true, fmt.Errorf("tokenizer %s: %w", name, err)
	}
	if !info.IsDir() {
		return abs, true, nil
	}
	file := filepath.Join(abs, TokenizerFile)
	fi, err := os.Stat(file)
	if err != nil || fi.IsDir() {
		return "", true, newError(ErrNotExist, fmt.Sprintf("tokenizer directory %s has no %s", abs, TokenizerFile), err)
	}
	return file, true, nil
}

// looksLikePath reports names the user clearly meant as files, so a typo
// gives "does not exist" instead of a confusing hub lookup.
func looksLikePath(name string) bool {
	for _, prefix := range []string{"./", "../", "/", "~", "." + string(os.PathSeparator), ".." + string(os.PathSeparator)} {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return filepath.IsAbs(name) || strings.HasSuffix(strings.ToLower(name), ".json")
}
