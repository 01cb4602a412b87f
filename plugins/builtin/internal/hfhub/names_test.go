package hfhub

import (
	"strings"
	"testing"
)

func TestValidateRepoID(t *testing.T) {
	tests := []struct {
		id      string
		wantErr string // "" = valid; else a substring of the error
	}{
		{"gpt2", ""},
		{"openai-community/gpt2", ""},
		{"meta-llama/Llama-3.1-8B-Instruct", ""},
		{"Qwen/Qwen2.5-0.5B-Instruct", ""},
		{"a", ""},
		{"_org/_name_", ""},
		{"org/" + strings.Repeat("n", 96), ""},
		{"", "empty"},
		{"a/b/c", "more than one '/'"},
		{"a--b", "'--' or '..'"},
		{"org/a..b", "'--' or '..'"},
		{"../etc", "'--' or '..'"},
		{"org/model.git", "'.git'"},
		{"-abc", "start or end"},
		{"abc-", "start or end"},
		{".abc", "start or end"},
		{"org/abc.", "start or end"},
		{"-org/abc", "start or end"},
		{"org/", "empty name"},
		{"/name", "empty organization"},
		{"a b", "character ' '"},
		{"org/na:me", "character ':'"},
		{`org\name`, `character '\\'`},
		{"mödel", "character"},
		{"org/" + strings.Repeat("n", 97), "97 characters, at most 96"},
	}
	for _, tt := range tests {
		err := ValidateRepoID(tt.id)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("ValidateRepoID(%q) = %v, want valid", tt.id, err)
		case tt.wantErr != "" && err == nil:
			t.Errorf("ValidateRepoID(%q) = nil, want error containing %q", tt.id, tt.wantErr)
		case tt.wantErr != "" && !strings.Contains(err.Error(), tt.wantErr):
			t.Errorf("ValidateRepoID(%q) = %v, want it to contain %q", tt.id, err, tt.wantErr)
		}
	}
}

func TestValidateRevision(t *testing.T) {
	tests := []struct {
		rev   string
		valid bool
	}{
		{"main", true},
		{"v1.0", true},
		{"refs/pr/12", true},
		{"0123456789abcdef0123456789abcdef01234567", true},
		{"", false},
		{"..", false},
		{"../main", false},
		{"refs/../../x", false},
		{"/abs", false},
		{"trailing/", false},
		{"a//b", false},
		{"./main", false},
		{"with space", false},
		{`back\slash`, false},
		{strings.Repeat("r", 256), false},
	}
	for _, tt := range tests {
		if err := validateRevision(tt.rev); (err == nil) != tt.valid {
			t.Errorf("validateRevision(%q) = %v, want valid=%t", tt.rev, err, tt.valid)
		}
	}
}

func TestIsCommitHashAndFolderName(t *testing.T) {
	hashes := map[string]bool{
		"0123456789abcdef0123456789abcdef01234567":  true,
		"0123456789ABCDEF0123456789ABCDEF01234567":  false, // the hub's hashes are lower case
		"0123456789abcdef0123456789abcdef0123456":   false, // 39
		"0123456789abcdef0123456789abcdef012345678": false, // 41
		"main": false,
	}
	for rev, want := range hashes {
		if got := isCommitHash(rev); got != want {
			t.Errorf("isCommitHash(%q) = %t, want %t", rev, got, want)
		}
	}
	if got := repoFolderName("meta-llama/Llama-3.1-8B"); got != "models--meta-llama--Llama-3.1-8B" {
		t.Errorf("repoFolderName = %q", got)
	}
	if got := repoFolderName("gpt2"); got != "models--gpt2" {
		t.Errorf("repoFolderName = %q", got)
	}
}
