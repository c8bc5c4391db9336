package noderuntime

import (
	"os"
	"path/filepath"
)

// installPlaces are the folders, after PATH, where Find looks for node on
// goos: where Node's installers, Homebrew and MacPorts, and the version
// managers (Volta, asdf, mise, nodenv, nvm, fnm; n installs into
// /usr/local) put it. A GUI app started from the Finder or a launcher gets
// none of them on its PATH, and the login shell may not give them either
// (nvm is set up in .bashrc, which a login shell need not read). Versions
// a manager keeps side by side come newest first; /usr/bin comes last,
// since a distribution's Node is often old.
func installPlaces(home, goos string) []string {
	if goos == "windows" {
		return windowsPlaces(home)
	}
	var out []string
	add := func(dirs ...string) { out = append(out, dirs...) }
	add("/usr/local/bin", "/opt/homebrew/bin", "/opt/local/bin")
	if home != "" {
		add(filepath.Join(home, ".volta", "bin"),
			filepath.Join(home, ".asdf", "shims"),
			filepath.Join(home, ".local", "share", "mise", "shims"),
			filepath.Join(home, ".nodenv", "shims"))
		add(newestFirst(filepath.Join(home, ".nvm", "versions", "node"), "bin")...)
		fnmRoots := []string{filepath.Join(home, ".local", "share", "fnm"), filepath.Join(home, ".fnm")}
		if goos == "darwin" {
			fnmRoots = append(fnmRoots, filepath.Join(home, "Library", "Application Support", "fnm"))
		}
		for _, r := range fnmRoots {
			add(filepath.Join(r, "aliases", "default", "bin"))
			add(newestFirst(filepath.Join(r, "node-versions"), filepath.Join("installation", "bin"))...)
		}
	}
	add("/snap/bin", "/usr/bin")
	return out
}

// windowsPlaces are installPlaces on Windows: the installer's folder
// (where nvm-windows links the active version too), Volta's shims, and
// the versions nvm-windows and fnm keep.
func windowsPlaces(home string) []string {
	env := func(k, fallback string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return fallback
	}
	programFiles := env("ProgramFiles", `C:\Program Files`)
	appData := env("APPDATA", filepath.Join(home, "AppData", "Roaming"))
	localAppData := env("LOCALAPPDATA", filepath.Join(home, "AppData", "Local"))
	out := []string{filepath.Join(programFiles, "nodejs"), filepath.Join(localAppData, "Volta", "bin")}
	out = append(out, newestFirst(filepath.Join(appData, "nvm"), "")...)
	out = append(out, newestFirst(filepath.Join(appData, "fnm", "node-versions"), "installation")...)
	return out
}

// newestFirst is sub inside each folder of parent named as a version,
// newest first: newestFirst("~/.nvm/versions/node", "bin").
func newestFirst(parent, sub string) []string {
	dirs := versionDirs(parent)
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		out = append(out, filepath.Join(d.dir, sub))
	}
	return out
}
