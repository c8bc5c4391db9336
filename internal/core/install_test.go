package core

import (
	"testing"

	"github.com/switchboard-app/switchboard/internal/installer"
)

type progressRecorder struct{ got []installer.Progress }

func (r *progressRecorder) Emit(name string, payload any) {
	if p, ok := payload.(installer.Progress); ok && name == EventInstallProgress {
		r.got = append(r.got, p)
	}
}

// Downloading is thinned out for the window; steps and notices are not.
func TestProgressEmitterThinsDownloading(t *testing.T) {
	rec := &progressRecorder{}
	emit := (&Services{emitter: rec}).progressEmitter()
	emit(installer.Progress{Step: "resolving"})
	for i := range 100 {
		emit(installer.Progress{Step: "downloading", Fetched: i + 1})
	}
	emit(installer.Progress{Step: "checking", Detail: "left out PATH"})
	emit(installer.Progress{Step: "checking", Detail: "left out NODE_OPTIONS"})
	emit(installer.Progress{Step: "done"})
	if len(rec.got) != 5 || rec.got[1].Fetched != 1 || rec.got[3].Detail != "left out NODE_OPTIONS" {
		t.Fatalf("emitted %v", rec.got)
	}
}
