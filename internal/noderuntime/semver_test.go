package noderuntime

import (
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want version
		ok   bool
	}{
		{"22.11.0", version{22, 11, 0, ""}, true},
		{"v20.5.1\n", version{20, 5, 1, ""}, true},
		{"23.0.0-rc.1+build.5", version{23, 0, 0, "rc.1"}, true},
		{"22.11", version{}, false},
		{"22.x.0", version{}, false},
		{"22.-1.0", version{}, false},
		{"22.1.0-", version{}, false},
		{"9999999999.0.0", version{}, false},
		{"", version{}, false},
	} {
		got, ok := parseVersion(tc.in)
		if ok != tc.ok || got != tc.want {
			t.Errorf("parseVersion(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestVersionOrder(t *testing.T) {
	in := []string{"22.10.0", "9.0.0", "22.9.0", "22.10.0-rc.1", "23.0.0", "22.2.0"}
	var vs []version
	for _, s := range in {
		v, _ := parseVersion(s)
		vs = append(vs, v)
	}
	slices.SortFunc(vs, version.compare)
	var got []string
	for _, v := range vs {
		got = append(got, v.String())
	}
	want := []string{"9.0.0", "22.2.0", "22.9.0", "22.10.0-rc.1", "22.10.0", "23.0.0"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
}

func TestSatisfies(t *testing.T) {
	for _, tc := range []struct {
		rng     string
		yes, no []string
	}{
		// engines.node of npm 9, 10, 11 and 12.
		{"^14.17.0 || ^16.13.0 || >=18.0.0", []string{"14.17.0", "16.20.2", "18.0.0", "22.1.0"}, []string{"14.16.9", "15.0.0", "17.9.0"}},
		{"^18.17.0 || >=20.5.0", []string{"18.17.0", "18.20.0", "20.5.0", "22.0.0"}, []string{"18.16.0", "19.0.0", "20.4.9"}},
		{"^20.17.0 || >=22.9.0", []string{"20.17.0", "20.99.0", "22.9.0", "24.1.0"}, []string{"20.16.0", "21.0.0", "22.8.0"}},
		{"^22.22.2 || ^24.15.0 || >=26.0.0", []string{"22.22.2", "22.23.3", "24.15.0", "26.0.0"}, []string{"22.10.0", "23.0.0", "24.14.0", "25.9.0"}},
		{">= 20", []string{"20.0.0", "21.1.1"}, []string{"19.9.9"}},
		{">20", []string{"21.0.0"}, []string{"20.9.0"}},
		{">20.1", []string{"20.2.0"}, []string{"20.1.9"}},
		{"<=20", []string{"20.9.9", "19.0.0"}, []string{"21.0.0"}},
		{"<20.3.0", []string{"20.2.9"}, []string{"20.3.0"}},
		{"20.x", []string{"20.0.0", "20.99.1"}, []string{"21.0.0", "19.9.9"}},
		{"20", []string{"20.1.0"}, []string{"21.0.0"}},
		{"=22.1.0", []string{"22.1.0"}, []string{"22.1.1"}},
		{"~20.1.2", []string{"20.1.2", "20.1.9"}, []string{"20.2.0", "20.1.1"}},
		{"~20", []string{"20.9.0"}, []string{"21.0.0"}},
		{"^0.2.3", []string{"0.2.9"}, []string{"0.3.0"}},
		{"^0.0.3", []string{"0.0.3"}, []string{"0.0.4"}},
		{"18 - 20", []string{"18.0.0", "20.9.9"}, []string{"17.9.9", "21.0.0"}},
		{"18.1.0 - 20.2.0", []string{"20.2.0"}, []string{"20.2.1"}},
		{">=18 <21", []string{"20.0.0"}, []string{"21.0.0", "17.0.0"}},
		{">=20.0.0-0", []string{"20.0.0"}, []string{"19.0.0"}},
		{"*", []string{"1.0.0"}, nil},
		{"", []string{"1.0.0"}, nil},
		{"<*", nil, []string{"1.0.0"}},
	} {
		for _, s := range tc.yes {
			v, _ := parseVersion(s)
			if ok, err := satisfies(v, tc.rng); !ok || err != nil {
				t.Errorf("satisfies(%s, %q) = %v, %v; want true", s, tc.rng, ok, err)
			}
		}
		for _, s := range tc.no {
			v, _ := parseVersion(s)
			if ok, err := satisfies(v, tc.rng); ok || err != nil {
				t.Errorf("satisfies(%s, %q) = %v, %v; want false", s, tc.rng, ok, err)
			}
		}
	}
}

func TestSatisfiesRejectsGarbage(t *testing.T) {
	v, _ := parseVersion("22.0.0")
	for _, rng := range []string{"latest", ">=abc", "1.2.3.4", "^x.1"} {
		if _, err := satisfies(v, rng); err == nil {
			t.Errorf("satisfies(22.0.0, %q): no error", rng)
		}
	}
}
