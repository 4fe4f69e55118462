package common

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// defaultSaveDir is where `s` saves when no folder was given: the user's
// Downloads folder, where a web browser saves too — never the folder the
// browser was started in (under `make demo` that is the source tree). It
// is $XDG_DOWNLOAD_DIR, else the desktop's own Downloads folder
// (xdg-user-dirs' user-dirs.dirs, which names it in the user's language),
// else ~/Downloads; with no home, the temporary folder.
func defaultSaveDir(getenv func(string) string) string {
	if d := getenv("XDG_DOWNLOAD_DIR"); filepath.IsAbs(d) {
		return d
	}
	home := getenv("HOME")
	if home == "" {
		return os.TempDir()
	}
	config := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(config) {
		config = filepath.Join(home, ".config")
	}
	if d := userDirsDownload(filepath.Join(config, "user-dirs.dirs"), home); d != "" {
		return d
	}
	return filepath.Join(home, "Downloads")
}

// userDirsDownload reads XDG_DOWNLOAD_DIR from an xdg-user-dirs file
// (lines XDG_DOWNLOAD_DIR="$HOME/Downloads"); "" when it says nothing
// usable.
func userDirsDownload(file, home string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(strings.TrimSpace(sc.Text()), "=")
		if !ok || name != "XDG_DOWNLOAD_DIR" {
			continue
		}
		value = strings.Trim(value, `"`)
		if rest, ok := strings.CutPrefix(value, "$HOME"); ok {
			value = home + rest
		}
		if filepath.IsAbs(value) && filepath.Clean(value) != filepath.Clean(home) {
			return filepath.Clean(value)
		}
	}
	return ""
}
