package skill

import (
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// mimeByExt is a fixed extension table (not the host's registry, so every
// Computer answers alike, as the SDK does).
var mimeByExt = map[string]string{
	".md": "text/markdown", ".markdown": "text/markdown", ".txt": "text/plain",
	".py": "text/x-python", ".sh": "text/x-shellscript", ".js": "text/javascript",
	".ts": "text/x-typescript", ".go": "text/x-go", ".html": "text/html", ".htm": "text/html",
	".css": "text/css", ".csv": "text/csv", ".json": "application/json",
	".yaml": "application/yaml", ".yml": "application/yaml", ".toml": "application/toml",
	".xml": "application/xml", ".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg",
	".gif": "image/gif", ".svg": "image/svg+xml", ".webp": "image/webp", ".pdf": "application/pdf",
	".zip": "application/zip",
}

// MIMEType guesses the MIME type of a file from its extension;
// application/octet-stream when unknown.
func MIMEType(name string) string {
	if m, ok := mimeByExt[strings.ToLower(filepath.Ext(name))]; ok {
		return m
	}
	return "application/octet-stream"
}

// IsText reports whether a MIME type is textual: text/*, a +json, +xml or
// +yaml suffix, or JSON, YAML, TOML, XML or JavaScript.
func IsText(mime string) bool {
	essence, _, _ := strings.Cut(mime, ";")
	essence = strings.ToLower(strings.TrimSpace(essence))
	if strings.HasPrefix(essence, "text/") {
		return true
	}
	for _, s := range []string{"+json", "+xml", "+yaml"} {
		if strings.HasSuffix(essence, s) {
			return true
		}
	}
	switch essence {
	case "application/json", "application/yaml", "application/x-yaml", "application/toml",
		"application/xml", "application/javascript":
		return true
	}
	return false
}

func validUTF8(b []byte) bool { return utf8.Valid(b) }
