package mcpconn

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/switchboard-app/switchboard/internal/mcpconn/mcptest"
	"github.com/switchboard-app/switchboard/internal/serverconf"
)

// TestStdoutFilter: the filter passes JSON-RPC lines byte for byte, drops
// the rest (cut for the log), and fails a stream with too much of them.
func TestStdoutFilter(t *testing.T) {
	long := strings.Repeat("x", 3000)
	bigJSON := `{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("y", 200_000) + `"}}`
	tests := []struct {
		name    string
		in      string
		out     string
		noise   []string
		wantErr bool // a noiseError instead of EOF
	}{
		{name: "clean", in: `{"a":1}` + "\n" + `[{"b":2}]` + "\n", out: `{"a":1}` + "\n" + `[{"b":2}]` + "\n"},
		{name: "sqlite banner", in: "PRAGMA journal_mode = WAL\n" + `{"a":1}` + "\n",
			out: `{"a":1}` + "\n", noise: []string{"PRAGMA journal_mode = WAL"}},
		{name: "noise between messages, CRLF", in: `{"a":1}` + "\r\nServer ready\r\n" + `  {"b":2}` + "\r\n",
			out: `{"a":1}` + "\r\n" + `  {"b":2}` + "\r\n", noise: []string{"Server ready"}},
		{name: "malformed JSON is left to the SDK", in: "{oops\n", out: "{oops\n"},
		{name: "long noise line is cut", in: long + "\n" + `{}` + "\n", out: "{}\n", noise: []string{long[:maxNoiseLine] + "…"}},
		{name: "noise without newline at EOF", in: "bye", noise: []string{"bye"}},
		{name: "big message streams through", in: "hi\n" + bigJSON + "\n", out: bigJSON + "\n", noise: []string{"hi"}},
		{name: "never JSON", in: strings.Repeat("loading...\n", maxNoiseBytes/noiseLineCost+1), wantErr: true,
			noise: make([]string, maxNoiseBytes/noiseLineCost)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var noise []string
			f := newStdoutFilter(io.NopCloser(iotest.HalfReader(strings.NewReader(tt.in))), func(l string) { noise = append(noise, l) }, time.Now)
			got, err := io.ReadAll(iotest.OneByteReader(f))
			var ne *noiseError
			if tt.wantErr != errors.As(err, &ne) || !tt.wantErr && err != nil {
				t.Fatalf("err = %v, want a noiseError: %v", err, tt.wantErr)
			}
			if tt.wantErr {
				if !ne.beforeFirst || ne.first != "loading..." || !isJSONSyntax(err) {
					t.Errorf("error %v (%+v)", err, ne)
				}
				for i := range noise {
					noise[i] = ""
				}
			}
			if string(got) != tt.out {
				t.Errorf("out = %.200q, want %.200q", got, tt.out)
			}
			if diff := cmp.Diff(tt.noise, noise); diff != "" {
				t.Errorf("noise (-want +got):\n%s", diff)
			}
		})
	}
}

// TestStdoutFilterRate: after the first message, the bound is per minute,
// so a server that logs a line now and then keeps its connection, and one
// that floods stdout loses it.
func TestStdoutFilterRate(t *testing.T) {
	now := time.Unix(0, 0)
	pr, pw := io.Pipe()
	f := newStdoutFilter(pr, nil, func() time.Time { return now })
	read := func() error {
		buf := make([]byte, 64)
		_, err := f.Read(buf)
		return err
	}
	line := strings.Repeat("n", 1000) + "\n"
	// write writes n noise lines and a message, in one goroutine so that
	// they arrive in order.
	write := func(n int) { go pw.Write([]byte(strings.Repeat(line, n) + "{}\n")) }

	write(0)
	if err := read(); err != nil {
		t.Fatal(err)
	}
	// 60 KiB of noise a minute, for five minutes: fine.
	for range 5 {
		write(60)
		if err := read(); err != nil {
			t.Fatalf("after %s: %v", now.Sub(time.Unix(0, 0)), err)
		}
		now = now.Add(noiseWindow)
	}
	// 70 KiB in one minute: the stream fails.
	write(70)
	err := read()
	var ne *noiseError
	if !errors.As(err, &ne) || ne.beforeFirst {
		t.Fatalf("err = %v, want a noiseError after the first message", err)
	}
}

// doctor says what the window's server row says: a server that writes
// log lines on stdout works, but should write them to stderr.
func TestDoctorWarnsAboutStdoutNoise(t *testing.T) {
	m, _ := newTestManager(t, nil)
	reports := m.Doctor(t.Context(), []serverconf.Config{mcptest.FaultServer(t, "g", "garbage"), mcptest.FaultServer(t, "ok", "ok")})
	if r := reports[0]; r.State != StateConnected || r.Warning != stdoutWarning {
		t.Errorf("noisy server: state %s, warning %q", r.State, r.Warning)
	}
	if r := reports[1]; r.State != StateConnected || r.Warning != "" {
		t.Errorf("clean server: state %s, warning %q", r.State, r.Warning)
	}
}
