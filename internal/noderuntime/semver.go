package noderuntime

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A version is a semantic version: three numbers and a prerelease part
// ("rc.1", "" for a release). Build metadata ("+sha") is dropped.
type version struct {
	major, minor, patch int
	pre                 string
}

// parseVersion parses "22.11.0" or "v22.11.0-rc.1+build".
func parseVersion(s string) (version, bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	core, pre, hasPre := strings.Cut(s, "-")
	if hasPre && pre == "" {
		return version{}, false
	}
	parts := strings.Split(core, ".")
	if len(parts) != 3 {
		return version{}, false
	}
	var nums [3]int
	for i, p := range parts {
		n, ok := number(p)
		if !ok {
			return version{}, false
		}
		nums[i] = n
	}
	return version{nums[0], nums[1], nums[2], pre}, true
}

// number parses a version component: decimal digits, at most nine of
// them, so that it cannot overflow.
func number(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

func (v version) String() string {
	s := fmt.Sprintf("%d.%d.%d", v.major, v.minor, v.patch)
	if v.pre != "" {
		s += "-" + v.pre
	}
	return s
}

// compare returns -1, 0 or +1 as v is older than, the same as or newer
// than w. A release is newer than its prereleases; prereleases compare as
// strings, which is all that choosing among releases needs.
func (v version) compare(w version) int {
	for _, d := range [3]int{v.major - w.major, v.minor - w.minor, v.patch - w.patch} {
		if d != 0 {
			if d < 0 {
				return -1
			}
			return 1
		}
	}
	switch {
	case v.pre == w.pre:
		return 0
	case v.pre == "":
		return 1
	case w.pre == "":
		return -1
	}
	return strings.Compare(v.pre, w.pre)
}

// A comparator is one bound of a range: op is <, <=, >, >= or =.
type comparator struct {
	op string
	v  version
}

func (c comparator) holds(v version) bool {
	d := v.compare(c.v)
	switch c.op {
	case "<":
		return d < 0
	case "<=":
		return d <= 0
	case ">":
		return d > 0
	case ">=":
		return d >= 0
	}
	return d == 0
}

// satisfies reports whether the release v is in r, an npm semver range as
// package.json's engines.node holds it: sets joined by "||", each a list
// of comparators (<, <=, >, >=, =, ^, ~, x-ranges such as 20.x, and
// hyphen ranges such as 18 - 20). Prerelease bounds count as their
// release, which is exact for the releases it is asked about.
func satisfies(v version, r string) (bool, error) {
	for _, set := range strings.Split(r, "||") {
		cs, err := parseSet(set)
		if err != nil {
			return false, err
		}
		ok := true
		for _, c := range cs {
			if !c.holds(v) {
				ok = false
				break
			}
		}
		if ok {
			return true, nil
		}
	}
	return false, nil
}

// A partial is a version in a range, where trailing components may be
// missing or wildcards: n is how many are given (0 for "*").
type partial struct {
	nums [3]int
	n    int
}

// release is the version major.minor.patch.
func release(major, minor, patch int) version {
	return version{major: major, minor: minor, patch: patch}
}

// floor is p with the missing components 0.
func (p partial) floor() version {
	return version{major: p.nums[0], minor: p.nums[1], patch: p.nums[2]}
}

// next is the first version above every version p matches: 1.2 -> 1.3.0,
// 1 -> 2.0.0, 1.2.3 -> 1.2.4.
func (p partial) next() version {
	switch p.n {
	case 1:
		return release(p.nums[0]+1, 0, 0)
	case 2:
		return release(p.nums[0], p.nums[1]+1, 0)
	}
	return release(p.nums[0], p.nums[1], p.nums[2]+1)
}

var errRange = errors.New("not an npm version range")

func parsePartial(s string) (partial, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "="), "v")
	if i := strings.IndexByte(s, '+'); i >= 0 {
		s = s[:i]
	}
	s, _, _ = strings.Cut(s, "-") // a prerelease bound counts as its release
	var p partial
	if s == "" {
		return p, nil
	}
	parts := strings.Split(s, ".")
	if len(parts) > 3 {
		return p, fmt.Errorf("%q: %w", s, errRange)
	}
	wild := false
	for i, c := range parts {
		if c == "x" || c == "X" || c == "*" {
			wild = true
			continue
		}
		n, ok := number(c)
		if !ok || wild {
			return p, fmt.Errorf("%q: %w", s, errRange)
		}
		p.nums[i] = n
		p.n = i + 1
	}
	return p, nil
}

// never is a comparator that no version satisfies.
var never = comparator{"<", version{}}

func parseSet(set string) ([]comparator, error) {
	fields := strings.Fields(set)
	if len(fields) == 3 && fields[1] == "-" {
		lo, err := parsePartial(fields[0])
		if err != nil {
			return nil, err
		}
		hi, err := parsePartial(fields[2])
		if err != nil {
			return nil, err
		}
		cs := []comparator{{">=", lo.floor()}}
		switch {
		case hi.n == 3:
			cs = append(cs, comparator{"<=", hi.floor()})
		case hi.n > 0:
			cs = append(cs, comparator{"<", hi.next()})
		}
		return cs, nil
	}
	var cs []comparator
	for i := 0; i < len(fields); i++ {
		tok := fields[i]
		// ">= 20" is allowed: an operator alone takes the next field.
		if strings.Trim(tok, "<>=^~") == "" && i+1 < len(fields) {
			i++
			tok += fields[i]
		}
		c, err := parseComparator(tok)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c...)
	}
	return cs, nil
}

func parseComparator(tok string) ([]comparator, error) {
	op := ""
	for _, o := range []string{">=", "<=", "~>", ">", "<", "=", "^", "~"} {
		if strings.HasPrefix(tok, o) {
			op, tok = o, tok[len(o):]
			break
		}
	}
	p, err := parsePartial(tok)
	if err != nil {
		return nil, err
	}
	M, m := p.nums[0], p.nums[1]
	if p.n == 0 {
		if op == "<" || op == ">" {
			return []comparator{never}, nil
		}
		return nil, nil // any version
	}
	switch op {
	case "", "=":
		if p.n == 3 {
			return []comparator{{"=", p.floor()}}, nil
		}
		return []comparator{{">=", p.floor()}, {"<", p.next()}}, nil
	case "^":
		var hi version
		switch {
		case M > 0 || p.n == 1:
			hi = release(M+1, 0, 0)
		case m > 0 || p.n == 2:
			hi = release(0, m+1, 0)
		default:
			hi = release(0, 0, p.nums[2]+1)
		}
		return []comparator{{">=", p.floor()}, {"<", hi}}, nil
	case "~", "~>":
		hi := release(M, m+1, 0)
		if p.n == 1 {
			hi = release(M+1, 0, 0)
		}
		return []comparator{{">=", p.floor()}, {"<", hi}}, nil
	case ">=", "<":
		return []comparator{{op, p.floor()}}, nil
	case ">":
		if p.n == 3 {
			return []comparator{{">", p.floor()}}, nil
		}
		return []comparator{{">=", p.next()}}, nil
	default: // "<="
		if p.n == 3 {
			return []comparator{{"<=", p.floor()}}, nil
		}
		return []comparator{{"<", p.next()}}, nil
	}
}
