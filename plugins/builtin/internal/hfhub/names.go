package hfhub

import (
	"fmt"
	"strings"
)

// maxRepoNameLen is huggingface_hub's limit on the name part of a repo id.
const maxRepoNameLen = 96

// ValidateRepoID checks a hub repo id the way huggingface_hub's
// validate_repo_id does (ASCII only, as the hub itself requires). The id
// becomes a cache folder name and a URL path, so anything that could escape
// either is refused.
func ValidateRepoID(id string) error {
	if id == "" {
		return fmt.Errorf("repo id is empty")
	}
	if strings.Count(id, "/") > 1 {
		return fmt.Errorf("repo id %q has more than one '/': use 'name' or 'org/name'", id)
	}
	if strings.Contains(id, "--") || strings.Contains(id, "..") {
		return fmt.Errorf("repo id %q contains '--' or '..'", id)
	}
	if strings.HasSuffix(id, ".git") {
		return fmt.Errorf("repo id %q ends in '.git'", id)
	}
	org, name, hasOrg := strings.Cut(id, "/")
	if !hasOrg {
		org, name = "", id
	} else if err := validateIDPart(id, "organization", org, 0); err != nil {
		return err
	}
	return validateIDPart(id, "name", name, maxRepoNameLen)
}

// validateIDPart checks one side of the '/': [A-Za-z0-9._-], starting and
// ending with [A-Za-z0-9_] (Python's \b word boundaries). maxLen 0 is no limit.
func validateIDPart(id, what, part string, maxLen int) error {
	if part == "" {
		return fmt.Errorf("repo id %q has an empty %s", id, what)
	}
	if maxLen > 0 && len(part) > maxLen {
		return fmt.Errorf("repo id %q: %s is %d characters, at most %d allowed", id, what, len(part), maxLen)
	}
	for i := 0; i < len(part); i++ {
		c := part[i]
		if !isWordByte(c) && c != '-' && c != '.' {
			return fmt.Errorf("repo id %q: %s has character %q; only letters, digits, '-', '_' and '.' are allowed", id, what, c)
		}
	}
	if !isWordByte(part[0]) || !isWordByte(part[len(part)-1]) {
		return fmt.Errorf("repo id %q: %s may not start or end with '-' or '.'", id, what)
	}
	return nil
}

func isWordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}

// validateRevision checks a branch, tag or commit name (or a ref file's
// contents). It becomes a relative path under refs/ and snapshots/, so it
// must not be able to climb out of them; "refs/pr/1" style names stay legal.
func validateRevision(rev string) error {
	if rev == "" {
		return fmt.Errorf("revision is empty")
	}
	if len(rev) > 255 {
		return fmt.Errorf("revision %.20q... is %d characters, at most 255 allowed", rev, len(rev))
	}
	for i := 0; i < len(rev); i++ {
		c := rev[i]
		if !isWordByte(c) && !strings.ContainsRune("-./+@=", rune(c)) {
			return fmt.Errorf("revision %q has character %q", rev, c)
		}
	}
	for seg := range strings.SplitSeq(rev, "/") {
		if seg == "" || seg == "." || strings.Contains(seg, "..") {
			return fmt.Errorf("revision %q has an empty, '.' or '..' path segment", rev)
		}
	}
	return nil
}

// isCommitHash matches huggingface_hub's REGEX_COMMIT_HASH (^[0-9a-f]{40}$).
func isCommitHash(rev string) bool {
	if len(rev) != 40 {
		return false
	}
	for i := 0; i < len(rev); i++ {
		c := rev[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// repoFolderName is huggingface_hub's repo_folder_name for a model repo.
func repoFolderName(repoID string) string {
	return ModelRepo(repoID).FolderName()
}
