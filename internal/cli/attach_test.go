package cli

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/llm/llmtest"
	"github.com/switchboard-app/switchboard/internal/paths"
	"github.com/switchboard-app/switchboard/internal/store"
)

// A 1x1 PNG.
var onePixelPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==")

// TestAskAttach: --attach (repeated) sends an image as an image part and
// a text file inlined, and the message is stored with both.
func TestAskAttach(t *testing.T) {
	srv := llmtest.NewServer(t, nil) // echoes, describing image parts
	dir := t.TempDir()
	files := t.TempDir()
	img := filepath.Join(files, "dot.png")
	notes := filepath.Join(files, "notes.md")
	os.WriteFile(img, onePixelPNG, 0o600)
	os.WriteFile(notes, []byte("- buy milk\n"), 0o600)

	code, stdout, stderr := run(t, dir, "", "ask", "--base-url", srv.URL, "--model", "m1", "--attach", img, "--attach", notes, "what is this?")
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, stderr)
	}
	want := "You said: <attachment name=\"notes.md\" type=\"text/markdown\">\n- buy milk\n</attachment>\n\nwhat is this? [image image/png, 70 bytes]\n"
	if stdout != want {
		t.Errorf("stdout:\n%q\nwant\n%q", stdout, want)
	}
	reqs := srv.ChatRequests()
	if imgs := reqs[0].Messages[len(reqs[0].Messages)-1].Images(); len(imgs) != 1 || !strings.HasPrefix(imgs[0], "data:image/png;base64,iVBOR") {
		t.Errorf("image parts %v", imgs)
	}
	st, err := store.Open(context.Background(), paths.In(dir).Database, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	convs, _ := st.ListConversations(context.Background(), 10, 0)
	msgs, _ := st.Messages(context.Background(), convs[0].ID, store.MessagePage{})
	if got := msgs[0].Attachments; len(got) != 2 || got[0].Name != "dot.png" || got[0].Kind != store.AttachmentImage || got[1].Name != "notes.md" {
		t.Errorf("stored attachments %+v", got)
	}
}

// TestAskAttachRefused: a file that cannot be attached fails the command
// before anything is asked or stored, saying what is accepted; an image
// over the limit says the limit.
func TestAskAttachRefused(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	files := t.TempDir()
	bin := filepath.Join(files, "tool.exe")
	os.WriteFile(bin, []byte("MZ\x90\x00\x03\x00\x00\x00\x04\x00\x00\x00\xff\xff\x00\x00"), 0o600)
	big := filepath.Join(files, "huge.png")
	os.WriteFile(big, append(append([]byte(nil), onePixelPNG...), make([]byte, 6<<20)...), 0o600)

	for file, words := range map[string]string{
		bin:                                 "attach images (PNG, JPEG, GIF, WebP), text files",
		big:                                 "is over 5 MiB, the most an image can be",
		filepath.Join(files, "missing.txt"): "no such file",
	} {
		dir := t.TempDir()
		code, _, stderr := run(t, dir, "", "ask", "--base-url", srv.URL, "--model", "m1", "--attach", file, "hi")
		if code != 1 || !strings.Contains(stderr, words) || !strings.Contains(stderr, "--attach "+file) {
			t.Errorf("%s: exit %d; stderr %q should say %q", filepath.Base(file), code, stderr, words)
		}
	}
	if n := len(srv.ChatRequests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// TestAskAttachOnly: a message may be attachments alone; a cut text is
// said on stderr.
func TestAskAttachOnly(t *testing.T) {
	srv := llmtest.NewServer(t, nil)
	log := filepath.Join(t.TempDir(), "big.log")
	os.WriteFile(log, []byte(strings.Repeat("line of log\n", 30000)), 0o600)
	code, stdout, stderr := run(t, t.TempDir(), "", "ask", "--base-url", srv.URL, "--model", "m1", "--attach", log)
	if code != 0 {
		t.Fatalf("exit %d\nstderr: %s", code, stderr)
	}
	if !strings.Contains(stderr, "big.log is cut to its first 200 KiB") {
		t.Errorf("stderr %q does not say the file was cut", stderr)
	}
	if !strings.Contains(stdout, "[truncated at 200 KiB]") {
		t.Errorf("the model was not told the file was cut: %q", stdout[max(0, len(stdout)-200):])
	}
}
