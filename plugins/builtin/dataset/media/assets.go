package media

import (
	"embed"
	"io/fs"
	"path"
	"sort"
)

// bundledAssets are the "--image-source assets" images (assets/README.md).
//
//go:embed assets/*.jpg
var bundledAssets embed.FS

// assetNames lists the bundled images in sorted order.
func assetNames() []string {
	entries, err := fs.ReadDir(bundledAssets, "assets")
	if err != nil {
		panic("media: embedded assets missing: " + err.Error())
	}
	var names []string
	for _, e := range entries {
		names = append(names, path.Join("assets", e.Name()))
	}
	sort.Strings(names)
	return names
}
