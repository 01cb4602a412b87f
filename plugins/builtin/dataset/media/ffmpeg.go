package media

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// findFFmpeg resolves the ffmpeg binary: path if set (a bare name is looked
// up in PATH), else "ffmpeg" in PATH. purpose says what needs it.
func findFFmpeg(path, purpose string) (string, error) {
	name := path
	if name == "" {
		name = "ffmpeg"
	}
	resolved, err := exec.LookPath(name)
	if err != nil {
		where := "in PATH"
		if path != "" {
			where = fmt.Sprintf("at %q", path)
		}
		return "", fmt.Errorf("%s needs the ffmpeg binary, which was not found %s (%v). Install FFmpeg: %s (or: conda install -c conda-forge ffmpeg), then make sure ffmpeg is on PATH",
			purpose, where, err, ffmpegInstallHint())
	}
	return resolved, nil
}

// ffmpegInstallHint is AIPerf's platform-specific install command.
func ffmpegInstallHint() string {
	switch runtime.GOOS {
	case "linux":
		if b, err := os.ReadFile("/etc/os-release"); err == nil {
			info := strings.ToLower(string(b))
			switch {
			case strings.Contains(info, "ubuntu"), strings.Contains(info, "debian"):
				return "sudo apt update && sudo apt install ffmpeg"
			case strings.Contains(info, "fedora"), strings.Contains(info, "rhel"), strings.Contains(info, "centos"):
				return "sudo dnf install ffmpeg"
			case strings.Contains(info, "arch"):
				return "sudo pacman -S ffmpeg"
			}
		}
		return "sudo apt install ffmpeg (Ubuntu/Debian) or your distribution's package manager"
	case "darwin":
		return "brew install ffmpeg"
	case "windows":
		return "winget install ffmpeg"
	}
	return "your system's package manager, or https://ffmpeg.org/download.html"
}

// runFFmpeg runs ffmpeg with stdin as input, writing to a file named out
// in a fresh temporary directory, and returns that file's bytes. A
// seekable file, not a pipe, because the WebM muxer records the duration
// (and MP3 its Xing header) only when it can seek back, as AIPerf notes.
// args must end just before the output path. stderr is in the error.
func runFFmpeg(ctx context.Context, bin string, stdin io.Reader, args []string, out string) ([]byte, error) {
	dir, err := os.MkdirTemp("", "aiperf-media-")
	if err != nil {
		return nil, fmt.Errorf("ffmpeg temp dir: %w", err)
	}
	defer os.RemoveAll(dir)
	dest := filepath.Join(dir, out)

	full := append([]string{"-hide_banner", "-nostats", "-loglevel", "error"}, args...)
	full = append(full, "-y", dest)
	cmd := exec.CommandContext(ctx, bin, full...)
	cmd.Stdin = stdin
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", bin, strings.Join(full, " "), err, tail(stderr.String(), 2000))
	}
	data, err := os.ReadFile(dest)
	if err != nil {
		return nil, fmt.Errorf("reading ffmpeg output: %w", err)
	}
	if len(data) == 0 {
		return nil, fmt.Errorf("ffmpeg produced no output: %s", tail(stderr.String(), 2000))
	}
	return data, nil
}

// tail keeps the last n bytes of s, trimmed.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	if s == "" {
		return "(no output on stderr)"
	}
	return s
}
