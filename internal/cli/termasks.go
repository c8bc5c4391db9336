package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/switchboard-app/switchboard/internal/elicit"
	"github.com/switchboard-app/switchboard/internal/sampling"
)

// A termAsker answers on the terminal what servers ask during `ask`, when
// stdin and stderr are terminals: a form, one prompt per field, each value
// checked as the window checks it (elicit.Form.Check), then sent,
// declined or cancelled; a completion, its messages shown, approved with
// y. A page to open, and a schema that is not a form, are declined with a
// word that the window answers those. Everything a server sent is printed
// without its control characters, so it cannot drive the terminal.
type termAsker struct {
	in  *bufio.Reader
	out io.Writer
	// lock keeps one prompt on the terminal at a time, approvals included.
	lock *sync.Mutex
	svc  askAnswerer
}

// askAnswerer takes the answers (core.Services).
type askAnswerer interface {
	AnswerElicitation(ctx context.Context, id string, a elicit.Answer) error
	AnswerSampling(id string, d sampling.Decision) error
}

// maxFieldTries bounds the prompts of one field; past it the form is
// cancelled.
const maxFieldTries = 5

// errNoInput is the end of stdin: what was being asked is cancelled.
var errNoInput = errors.New("no more input")

// answer answers one request (a *elicit.Request or *sampling.Request).
func (t *termAsker) answer(ctx context.Context, payload any) {
	t.lock.Lock()
	defer t.lock.Unlock()
	var err error
	switch r := payload.(type) {
	case *elicit.Request:
		err = t.svc.AnswerElicitation(ctx, r.ID, t.elicit(r))
	case *sampling.Request:
		err = t.svc.AnswerSampling(r.ID, t.sample(r))
	default:
		return
	}
	if err != nil {
		fmt.Fprintf(t.out, "[not sent: %v]\n", err)
	}
}

// elicit asks for a form on the terminal and returns the answer.
func (t *termAsker) elicit(r *elicit.Request) elicit.Answer {
	server := termText(r.ServerName, 100)
	if r.Mode == elicit.ModeURL || r.Form == nil {
		what := "a form Switchboard can show on the terminal"
		if r.Mode == elicit.ModeURL {
			what = "a page to open"
			if r.Waiting {
				what = "a step at " + termText(r.Host, 100)
			}
		}
		fmt.Fprintf(t.out, "\n[server %s asked for %s (%s); declined: answer such requests in the Switchboard window]\n", server, what, termText(r.Message, 300))
		return elicit.Answer{Action: elicit.Decline}
	}
	fmt.Fprintf(t.out, "\nServer %s asks for input:\n  %s\n", server, indent(termText(r.Message, elicit.MaxMessageLength)))
	fmt.Fprintln(t.out, "(Enter keeps the default, or leaves an optional field out.)")
	content := map[string]any{}
	for _, f := range r.Form.Fields {
		v, skip, err := t.field(f)
		if err != nil {
			fmt.Fprintf(t.out, "[cancelled: %v]\n", err)
			return elicit.Answer{Action: elicit.Cancel}
		}
		if !skip {
			content[f.Name] = v
		}
	}
	fmt.Fprintf(t.out, "Send this to %s? [y] send  [d] decline  [N] cancel > ", server)
	switch t.line() {
	case "y", "yes":
		return elicit.Answer{Action: elicit.Accept, Content: content}
	case "d", "decline":
		return elicit.Answer{Action: elicit.Decline}
	}
	return elicit.Answer{Action: elicit.Cancel}
}

// field asks for one field until its value is valid; skip means the
// optional field is left out.
func (t *termAsker) field(f elicit.Field) (v any, skip bool, err error) {
	label := termText(f.Title, 200)
	if label == "" {
		label = termText(f.Name, 200)
	}
	var notes []string
	if f.Required {
		notes = append(notes, "required")
	}
	switch f.Type {
	case elicit.TypeBoolean:
		notes = append(notes, "y/n")
	case elicit.TypeInteger:
		notes = append(notes, "a whole number")
	case elicit.TypeNumber:
		notes = append(notes, "a number")
	case elicit.TypeSelect:
		notes = append(notes, "its number")
	case elicit.TypeMultiSelect:
		notes = append(notes, "numbers separated by commas")
	}
	if f.Format != "" {
		notes = append(notes, f.Format)
	}
	if f.Default != nil {
		notes = append(notes, "default "+termText(fmt.Sprint(f.Default), 100))
	}
	if d := termText(f.Description, 300); d != "" {
		fmt.Fprintf(t.out, "  %s\n", d)
	}
	for i, o := range f.Options {
		fmt.Fprintf(t.out, "    %d) %s\n", i+1, termText(o.Label, 200))
	}
	one := &elicit.Form{Fields: []elicit.Field{f}}
	for range maxFieldTries {
		if len(notes) > 0 {
			fmt.Fprintf(t.out, "  %s (%s): ", label, strings.Join(notes, ", "))
		} else {
			fmt.Fprintf(t.out, "  %s: ", label)
		}
		line, err := t.read()
		if err != nil {
			return nil, false, err
		}
		v, skip, msg := parseField(f, line)
		if msg == "" && !skip {
			if err := one.Check(map[string]any{f.Name: v}); err != nil {
				var ce *elicit.CheckError
				if errors.As(err, &ce) && len(ce.Fields) > 0 {
					msg = ce.Fields[0].Message
				} else {
					msg = err.Error()
				}
			}
		}
		if msg == "" {
			return v, skip, nil
		}
		fmt.Fprintf(t.out, "    ↳ %s\n", msg)
	}
	return nil, false, fmt.Errorf("no valid value for %s after %d tries", label, maxFieldTries)
}

// parseField reads what was typed for f: the value, or skip (an optional
// field left empty), or why it is not one.
func parseField(f elicit.Field, line string) (v any, skip bool, msg string) {
	s := strings.TrimSpace(line)
	if s == "" {
		switch {
		case f.Default != nil:
			return f.Default, false, ""
		case f.Required:
			return nil, false, "required"
		}
		return nil, true, ""
	}
	switch f.Type {
	case elicit.TypeString:
		return line, false, "" // as typed, spaces and all
	case elicit.TypeNumber, elicit.TypeInteger:
		n, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, false, "not a number"
		}
		return n, false, ""
	case elicit.TypeBoolean:
		switch strings.ToLower(s) {
		case "y", "yes", "true":
			return true, false, ""
		case "n", "no", "false":
			return false, false, ""
		}
		return nil, false, "y or n"
	case elicit.TypeSelect:
		o, ok := option(f, s)
		if !ok {
			return nil, false, fmt.Sprintf("a number from 1 to %d", len(f.Options))
		}
		return o, false, ""
	case elicit.TypeMultiSelect:
		var out []any
		for p := range strings.SplitSeq(s, ",") {
			o, ok := option(f, strings.TrimSpace(p))
			if !ok {
				return nil, false, fmt.Sprintf("numbers from 1 to %d, separated by commas", len(f.Options))
			}
			out = append(out, o)
		}
		return out, false, ""
	}
	return nil, false, "Switchboard cannot read this field on the terminal"
}

// option is the value of f's choice s: its number, its value or its label.
func option(f elicit.Field, s string) (string, bool) {
	if n, err := strconv.Atoi(s); err == nil && n >= 1 && n <= len(f.Options) {
		return f.Options[n-1].Value, true
	}
	for _, o := range f.Options {
		if s == o.Value || s == o.Label {
			return o.Value, true
		}
	}
	return "", false
}

// sample shows a sampling request and asks y/N.
func (t *termAsker) sample(r *sampling.Request) sampling.Decision {
	model := termText(r.Model, 100)
	if r.ProviderName != "" {
		model = termText(r.ProviderName, 100) + " / " + model
	}
	fmt.Fprintf(t.out, "\nServer %s asks for a completion from %s, up to %d tokens.\n", termText(r.ServerName, 100), model, r.AllowedTokens)
	if s := strings.TrimSpace(r.SystemPrompt); s != "" {
		fmt.Fprintf(t.out, "  system: %s\n", indent(termText(s, 2000)))
	}
	for _, m := range r.Messages {
		var parts []string
		for _, p := range m.Parts {
			switch p.Type {
			case "text":
				parts = append(parts, termText(p.Text, 2000))
			case "image":
				parts = append(parts, fmt.Sprintf("[image %s, %d bytes]", termText(p.MIMEType, 50), len(p.Data)))
			case "tool_use":
				parts = append(parts, fmt.Sprintf("[calls %s %s]", termText(p.Name, 100), termText(string(p.Input), 500)))
			case "tool_result":
				parts = append(parts, fmt.Sprintf("[result of %s: %s]", termText(p.ToolUseID, 50), termText(p.Text, 1000)))
			}
		}
		fmt.Fprintf(t.out, "  %s: %s\n", m.Role, indent(strings.Join(parts, " ")))
	}
	if len(r.Tools) > 0 {
		names := make([]string, 0, len(r.Tools))
		for _, tool := range r.Tools {
			names = append(names, termText(tool.Name, 100))
		}
		fmt.Fprintf(t.out, "  tools the model may call (the server runs them): %s", strings.Join(names, ", "))
		if r.ToolChoice != "" {
			fmt.Fprintf(t.out, " (%s)", r.ToolChoice)
		}
		fmt.Fprintln(t.out)
	}
	fmt.Fprint(t.out, "Approve? The server gets the model's reply. [y/N] > ")
	switch t.line() {
	case "y", "yes":
		return sampling.Decision{Approve: true}
	}
	return sampling.Decision{}
}

// read reads a line, without its newline; errNoInput at the end of stdin.
func (t *termAsker) read() (string, error) {
	s, err := t.in.ReadString('\n')
	if err != nil && s == "" {
		return "", errNoInput
	}
	return strings.TrimRight(s, "\r\n"), nil
}

// line reads a line, trimmed and lower-cased ("" at the end of stdin).
func (t *termAsker) line() string {
	s, _ := t.read()
	return strings.ToLower(strings.TrimSpace(s))
}

// termText is s as it may be printed: control characters (escape
// sequences among them) as spaces, newlines kept, at most n characters.
func termText(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

// indent puts the lines after the first of s under it.
func indent(s string) string { return strings.ReplaceAll(s, "\n", "\n    ") }
