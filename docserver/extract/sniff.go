package extract

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"path"
	"strings"

	"github.com/smcp-browse/smcp-browse/internal/sanitize"
)

// Files whose name says nothing of their format (GPL-3, Apache-2.0,
// INSTALL.unix, go.mod, asm_amd64.s, a test's .golden file... anything
// without a known extension) are recognised by their content: a file
// that reads as UTF-8 text is served as plain text; anything else (an
// executable, an image without an extension) is not served at all, and
// the catalog counts it (Skipped). A file whose extension names a text
// format but whose bytes are binary (a PNG renamed .txt) is listed as
// unreadable with ErrBinary.

// SniffBytes is how much of a file content sniffing reads.
const SniffBytes = 8 << 10

// Sniffable reports whether a file's kind may be found from its content:
// its name names no known kind and its extension is not one of a binary
// format (BinaryName).
func Sniffable(name string) bool {
	if k, _ := KindOf(name); k != KindUnknown {
		return false
	}
	return !BinaryName(name)
}

// binaryExts are extensions of formats that are never text: a scan skips
// them without reading a byte.
var binaryExts = map[string]bool{
	"png": true, "jpg": true, "jpeg": true, "gif": true, "bmp": true, "ico": true, "webp": true, "tif": true, "tiff": true,
	"zip": true, "tar": true, "gz": true, "tgz": true, "bz2": true, "xz": true, "zst": true, "7z": true, "rar": true, "jar": true,
	"exe": true, "dll": true, "so": true, "dylib": true, "a": true, "o": true, "syso": true, "lib": true,
	"class": true, "pyc": true, "wasm": true, "bin": true, "elf": true, "db": true, "sqlite": true,
	"woff": true, "woff2": true, "ttf": true, "otf": true, "mp3": true, "mp4": true, "wav": true, "ogg": true, "flac": true,
	"avi": true, "mov": true, "mkv": true, "webm": true, "doc": true, "xls": true, "ppt": true, "odt": true, "ods": true,
	"odp": true, "epub": true, "deb": true, "rpm": true, "iso": true, "dmg": true, "pprof": true,
}

// BinaryName reports whether a file's extension is one of a binary
// format (png, zip, exe, so...).
func BinaryName(name string) bool {
	return binaryExts[strings.ToLower(strings.TrimPrefix(path.Ext(path.Base(name)), "."))]
}

// ErrBinary is the error of a file whose content is binary where its
// name says text.
var ErrBinary = errors.New("binary content, not text")

// CheckText returns an ErrBinary error when head (a file's first
// SniffBytes bytes) is not text for a file of kind k whose name says text
// (Markdown, text, code, CSV, TSV, HTML): head holds a NUL byte (and no
// UTF-16 byte-order mark), or starts with the signature of a binary
// format (PNG, ZIP, PDF, ...). A text with stray control bytes or in a
// legacy code page passes: it is served cleaned.
func CheckText(k Kind, head []byte) error {
	switch k {
	case KindMarkdown, KindText, KindCode, KindCSV, KindTSV, KindHTML:
	default:
		return nil
	}
	head = head[:min(len(head), SniffBytes)]
	if len(head) == 0 {
		return nil
	}
	ct := http.DetectContentType(head)
	switch {
	case strings.HasPrefix(ct, "text/") && strings.Contains(ct, "utf-16"):
		return nil
	case !strings.HasPrefix(ct, "text/") && ct != "application/octet-stream":
		return fmt.Errorf("%w (its bytes are %s): not served", ErrBinary, ct)
	case bytes.IndexByte(head, 0) >= 0:
		return fmt.Errorf("%w (it holds NUL bytes): not served", ErrBinary)
	}
	return nil
}

// KindOfContent is the kind of a file from its name or, when its name
// does not say and it is sniffable, from head (its first SniffBytes
// bytes, or all of it when shorter): KindText for text, KindUnknown for
// anything else.
func KindOfContent(name string, head []byte) (Kind, string) {
	if k, lang := KindOf(name); k != KindUnknown || !Sniffable(name) {
		return k, lang
	}
	if sanitize.LooksLikeText(head[:min(len(head), SniffBytes)]) {
		return KindText, ""
	}
	return KindUnknown, ""
}
