package cli

import (
	"bytes"
	"strings"
	"testing"

	"github.com/switchboard-app/switchboard/internal/chat"
)

// Item 2 of issue 13: the engine's warning before a request (too many
// tools for the provider) reaches the terminal of `switchboard ask`.
func TestAskPrintsWarning(t *testing.T) {
	var stdout, stderr bytes.Buffer
	p := &askPrinter{env: &Env{Stdout: &stdout, Stderr: &stderr}}
	msg := "162 tools are on, more than OpenAI accepts (128); the largest: desktop-commander (41 tools, 38 KB)."
	p.Emit(chat.EventWarning, chat.WarningEvent{ConversationID: "c1", Message: msg})
	if got := stderr.String(); got != "switchboard: warning: "+msg+"\n" {
		t.Errorf("stderr = %q; want the warning on a line of its own", got)
	}
	if stdout.Len() != 0 || strings.Contains(stdout.String(), "tools") {
		t.Errorf("stdout = %q; the warning belongs on stderr", stdout.String())
	}
}
