package hfmedia

import (
	"encoding/base64"
	"mime"
	"path/filepath"
	"strings"
)

// Videos is AIPerf's _extract_videos: a string is a URL passed through
// ("file://" put before a bare path), a {bytes, path} struct becomes a data
// URI whose MIME type comes from the path's extension (video/mp4 when
// unknown). Only a single value is read, as in AIPerf.
func Videos(value any) []string {
	switch v := value.(type) {
	case string:
		if v == "" {
			return nil
		}
		if strings.Contains(v, "://") || strings.HasPrefix(v, "data:") {
			return []string{v}
		}
		return []string{"file://" + v}
	case map[string]any:
		b, path, ok := Bytes(v)
		if !ok {
			return nil
		}
		return []string{"data:" + videoMIME(path) + ";base64," + base64.StdEncoding.EncodeToString(b)}
	}
	return nil
}

// videoMIME guesses a MIME type from a file name as Python's
// mimetypes.guess_type does for video files, video/mp4 when unknown.
func videoMIME(path string) string {
	ext := strings.ToLower(filepath.Ext(path))
	if m, ok := videoTypes[ext]; ok {
		return m
	}
	if m := mime.TypeByExtension(ext); m != "" {
		return strings.TrimSpace(strings.Split(m, ";")[0])
	}
	return "video/mp4"
}

// videoTypes are Python's mimetypes answers for the common video
// extensions, which the system's MIME table may lack.
var videoTypes = map[string]string{
	".mp4": "video/mp4", ".m4v": "video/mp4", ".webm": "video/webm", ".mov": "video/quicktime",
	".avi": "video/x-msvideo", ".mkv": "video/x-matroska", ".mpeg": "video/mpeg", ".mpg": "video/mpeg",
	".ogv": "video/ogg", ".3gp": "video/3gpp", ".wmv": "video/x-ms-wmv", ".flv": "video/x-flv",
}
