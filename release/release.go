// Package release names the reference releases tilels models (the PyPI
// wheels of apache-tvm) and sets of them. It is a leaf: every layer that
// behaves differently per release (the evaluator's library surface, the
// dispatcher's registry, the variants' algorithms) imports it, and the
// differences themselves live as data next to the code they change.
package release

import (
	"fmt"
	"strings"
)

// Release is one modelled reference release. The zero value is the seeds'
// release, 0.25.0.post1, so that code and tests built before releases were
// modelled keep their meaning.
type Release uint8

const (
	// R025 is apache-tvm 0.25.0.post1 (the seeds' release): copy variants
	// gmem_smem/reg, copy_async tma, no forced vector widths.
	R025 Release = iota
	// R026 is apache-tvm 0.26.0: vec_auto, vec_16b..vec_256b, tma_auto and
	// tma_explicit, ops log2 and maximum.
	R026
	// R027 is apache-tvm 0.27.0.post1, what `pip install apache-tvm`
	// installs today.
	R027

	count
)

// Newest is the newest modelled release (the default without other
// evidence).
const Newest = R027

// All lists the modelled releases, oldest first.
var All = []Release{R025, R026, R027}

var versions = [...]string{R025: "0.25.0.post1", R026: "0.26.0", R027: "0.27.0.post1"}
var shorts = [...]string{R025: "0.25", R026: "0.26", R027: "0.27"}

// String is the PyPI version, "0.27.0.post1".
func (r Release) String() string {
	if r < count {
		return versions[r]
	}
	return fmt.Sprintf("release(%d)", uint8(r))
}

// Short is "0.27".
func (r Release) Short() string {
	if r < count {
		return shorts[r]
	}
	return r.String()
}

// Parse accepts a short name ("0.27"), a PyPI version ("0.27.0.post1",
// "0.27.0") or any version string whose major.minor is a modelled release
// ("0.27.1.dev3" → 0.27). ok is false for anything else.
func Parse(s string) (Release, bool) {
	s = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(s), "v"))
	for r := R025; r < count; r++ {
		if s == versions[r] || s == shorts[r] {
			return r, true
		}
	}
	parts := strings.SplitN(s, ".", 3)
	if len(parts) >= 2 {
		mm := parts[0] + "." + parts[1]
		for r := R025; r < count; r++ {
			if mm == shorts[r] {
				return r, true
			}
		}
	}
	return 0, false
}

// Names is the accepted spellings, for messages: "0.25, 0.26, 0.27".
func Names() string {
	var out []string
	for _, r := range All {
		out = append(out, r.Short())
	}
	return strings.Join(out, ", ")
}

// Set is a set of releases; the zero Set means every release (a variant
// or construct that never changed).
type Set uint8

// Only is the set of the given releases.
func Only(rs ...Release) Set {
	var s Set
	for _, r := range rs {
		s |= 1 << r
	}
	return s
}

// From is r and every later release.
func From(r Release) Set {
	var s Set
	for x := r; x < count; x++ {
		s |= 1 << x
	}
	return s
}

// Until is r and every earlier release.
func Until(r Release) Set {
	var s Set
	for x := R025; x <= r; x++ {
		s |= 1 << x
	}
	return s
}

// Has reports whether r is in s (always true for the zero Set).
func (s Set) Has(r Release) bool { return s == 0 || s&(1<<r) != 0 }

// String lists the releases of s: "0.26, 0.27"; "all" for the zero Set.
func (s Set) String() string {
	if s == 0 {
		return "all"
	}
	var out []string
	for _, r := range All {
		if s&(1<<r) != 0 {
			out = append(out, r.Short())
		}
	}
	return strings.Join(out, ", ")
}
