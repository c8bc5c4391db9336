package paths

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDevBuildDataDir(t *testing.T) {
	base, err := os.UserConfigDir()
	if err != nil {
		t.Skip("no user config directory here:", err)
	}
	tests := []struct {
		name          string
		dev           bool
		dataDir, real string
		want          string
	}{
		{name: "release", want: filepath.Join(base, "Switchboard")},
		{name: "release ignores the dev switch", real: "1", want: filepath.Join(base, "Switchboard")},
		{name: "dev", dev: true, want: filepath.Join(base, "Switchboard-dev")},
		{name: "dev asked for the real data", dev: true, real: "1", want: filepath.Join(base, "Switchboard")},
		{name: "dev with a data directory", dev: true, dataDir: "/tmp/sb-data", want: "/tmp/sb-data"},
	}
	defer func(v bool) { devBuild = v }(devBuild)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			devBuild = tt.dev
			t.Setenv(EnvDataDir, tt.dataDir)
			t.Setenv(EnvRealData, tt.real)
			p, err := Resolve()
			if err != nil {
				t.Fatal(err)
			}
			if p.Dir != tt.want {
				t.Errorf("Dir = %q, want %q", p.Dir, tt.want)
			}
		})
	}
}
