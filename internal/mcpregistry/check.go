package mcpregistry

import (
	"fmt"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// namePattern is a registry server name: reverse-DNS, one slash.
var namePattern = regexp.MustCompile(`^[a-zA-Z0-9.-]+/[a-zA-Z0-9._-]+$`)

// CheckName returns an error unless name has the form of a registry
// server name ("io.github.user/weather", 3 to 200 characters).
func CheckName(name string) error {
	if len(name) < 3 || len(name) > 200 || !namePattern.MatchString(name) {
		return fmt.Errorf("%q is not a registry server name (like io.github.user/server: letters, digits, dots and dashes, one slash); search for the server to see its name", clean(name, 80))
	}
	return nil
}

// Bounds on one entry. An entry past them is refused rather than cut, so
// that nothing it asks for (an env variable, an argument) goes missing.
const (
	maxText      = 4096 // any string that is run or sent: identifiers, values, URLs
	maxList      = 64   // packages, remotes, arguments, env variables, headers, choices
	maxVariables = 16   // variables of one input
	maxIcons     = 8

	// Display strings are cut, not refused.
	maxTitle       = 100
	maxDescription = 1000
)

// checkEntry refuses an entry that is not valid or past the bounds, and
// cleans its display strings (control characters out, long ones cut).
func checkEntry(e *Entry) error {
	s := &e.Server
	if err := CheckName(s.Name); err != nil {
		return err
	}
	if s.Version == "" || len(s.Version) > 255 || hasControl(s.Version) {
		return fmt.Errorf("version %q is not a version", clean(s.Version, 40))
	}
	s.Title = clean(s.Title, maxTitle)
	s.Description = clean(s.Description, maxDescription)
	s.WebsiteURL = cleanURL(s.WebsiteURL)
	if r := s.Repository; r != nil {
		r.URL, r.Source, r.Subfolder = cleanURL(r.URL), clean(r.Source, 40), clean(r.Subfolder, 200)
	}
	if len(s.Icons) > maxIcons {
		s.Icons = s.Icons[:maxIcons]
	}
	for i := range s.Icons {
		s.Icons[i].Src = cleanURL(s.Icons[i].Src)
	}
	if len(s.Packages) > maxList || len(s.Remotes) > maxList {
		return fmt.Errorf("it lists %d packages and %d remotes, more than %d", len(s.Packages), len(s.Remotes), maxList)
	}
	for i := range s.Packages {
		p := &s.Packages[i]
		if err := checkStrings(p.RegistryType, p.RegistryBaseURL, p.Identifier, p.Version, p.FileSHA256, p.RuntimeHint); err != nil {
			return fmt.Errorf("packages[%d]: %w", i, err)
		}
		if err := checkTransport(&p.Transport); err != nil {
			return fmt.Errorf("packages[%d].transport: %w", i, err)
		}
		if len(p.RuntimeArguments) > maxList || len(p.PackageArguments) > maxList || len(p.EnvironmentVariables) > maxList {
			return fmt.Errorf("packages[%d] has more than %d arguments or environment variables", i, maxList)
		}
		for _, args := range [][]Argument{p.RuntimeArguments, p.PackageArguments} {
			for j := range args {
				if err := checkStrings(args[j].Type, args[j].Name, args[j].ValueHint); err != nil {
					return fmt.Errorf("packages[%d] argument %d: %w", i, j, err)
				}
				if err := checkInput(&args[j].Input, true); err != nil {
					return fmt.Errorf("packages[%d] argument %d: %w", i, j, err)
				}
			}
		}
		if err := checkKeyValues(p.EnvironmentVariables); err != nil {
			return fmt.Errorf("packages[%d] environment: %w", i, err)
		}
	}
	for i := range s.Remotes {
		if err := checkTransport(&s.Remotes[i]); err != nil {
			return fmt.Errorf("remotes[%d]: %w", i, err)
		}
	}
	if o := e.Meta.Official; o != nil {
		o.Status, o.StatusMessage = clean(o.Status, 20), clean(o.StatusMessage, 500)
		o.PublishedAt, o.UpdatedAt = clean(o.PublishedAt, 40), clean(o.UpdatedAt, 40)
	}
	return nil
}

func checkTransport(t *Transport) error {
	if err := checkStrings(t.Type, t.URL); err != nil {
		return err
	}
	if err := checkKeyValues(t.Headers); err != nil {
		return fmt.Errorf("headers: %w", err)
	}
	return checkVariables(t.Variables)
}

func checkKeyValues(kvs []KeyValueInput) error {
	if len(kvs) > maxList {
		return fmt.Errorf("more than %d", maxList)
	}
	for i := range kvs {
		if err := checkStrings(kvs[i].Name); err != nil {
			return err
		}
		if err := checkInput(&kvs[i].Input, true); err != nil {
			return fmt.Errorf("%s: %w", clean(kvs[i].Name, 60), err)
		}
	}
	return nil
}

// checkInput checks an input's strings and cleans its display strings;
// variables are checked when withVars (an input's variables have none).
func checkInput(in *Input, withVars bool) error {
	if err := checkStrings(in.Format, in.Value, in.Default); err != nil {
		return err
	}
	if len(in.Choices) > maxList {
		return fmt.Errorf("more than %d choices", maxList)
	}
	if err := checkStrings(in.Choices...); err != nil {
		return err
	}
	in.Description = clean(in.Description, maxDescription)
	in.Placeholder = clean(in.Placeholder, 200)
	if !withVars {
		if len(in.Variables) > 0 {
			return fmt.Errorf("variables inside variables")
		}
		return nil
	}
	return checkVariables(in.Variables)
}

func checkVariables(vars map[string]Input) error {
	if len(vars) > maxVariables {
		return fmt.Errorf("more than %d variables", maxVariables)
	}
	for name, v := range vars {
		if err := checkStrings(name); err != nil {
			return err
		}
		if err := checkInput(&v, false); err != nil {
			return fmt.Errorf("variable %s: %w", clean(name, 40), err)
		}
		vars[name] = v
	}
	return nil
}

// checkStrings refuses strings that are long, not UTF-8, or hold control
// or bidirectional formatting characters: these are run or sent, and
// shown as they are.
func checkStrings(ss ...string) error {
	for _, s := range ss {
		if len(s) > maxText {
			return fmt.Errorf("a value is longer than %d bytes", maxText)
		}
		if !utf8.ValidString(s) || strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || isBidi(r) }) >= 0 {
			return fmt.Errorf("a value holds control characters (%q)", clean(s, 40))
		}
	}
	return nil
}

// clean makes s safe to show on a terminal or in a page: control and
// bidirectional formatting characters go (line breaks and tabs become
// spaces), runs of spaces shrink to one, and the result is cut to n runes
// with an ellipsis.
func clean(s string, n int) string {
	var b strings.Builder
	space := false
	count := 0
	for _, r := range s {
		if r == utf8.RuneError || isBidi(r) || (unicode.IsControl(r) && !unicode.IsSpace(r)) {
			continue
		}
		if unicode.IsSpace(r) {
			space = b.Len() > 0
			continue
		}
		if count >= n {
			return strings.TrimSpace(b.String()) + "…"
		}
		if space {
			b.WriteByte(' ')
			count++
			space = false
		}
		b.WriteRune(r)
		count++
	}
	return b.String()
}

// cleanURL keeps an http(s) URL that has no spaces or control
// characters, shortish; anything else becomes "".
func cleanURL(s string) string {
	if len(s) > 2048 || strings.IndexFunc(s, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || isBidi(r) }) >= 0 {
		return ""
	}
	if !strings.HasPrefix(s, "https://") && !strings.HasPrefix(s, "http://") {
		return ""
	}
	return s
}

// isBidi reports the Unicode bidirectional formatting characters, which
// can make text show in another order than it is.
func isBidi(r rune) bool {
	return (r >= 0x202A && r <= 0x202E) || (r >= 0x2066 && r <= 0x2069) || r == 0x200E || r == 0x200F || r == 0x061C
}

// hasControl reports whether s has a control character.
func hasControl(s string) bool {
	return strings.IndexFunc(s, unicode.IsControl) >= 0
}

// shortName is the part of a registry name after the slash.
func shortName(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}
