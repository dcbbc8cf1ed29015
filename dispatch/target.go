package dispatch

import (
	"strconv"
	"strings"
)

// Target names the code generator a call is dispatched for: Kind is TVM's
// target kind name ("cuda"), Arch its arch string ("sm_90a").
type Target struct {
	Kind, Arch string
}

// DefaultTarget is cuda / sm_90a (H100/H200).
func DefaultTarget() Target { return Target{Kind: "cuda", Arch: "sm_90a"} }

// IsCUDA reports whether t is a CUDA target.
func (t Target) IsCUDA() bool { return t.Kind == "cuda" }

// SMVersion parses the leading "sm_(\d+)" of Arch (TVM sm_version_ok):
// "sm_90a" → 90, "sm_100a" → 100; 0 when Arch does not start that way.
func (t Target) SMVersion() int {
	rest, ok := strings.CutPrefix(t.Arch, "sm_")
	if !ok {
		return 0
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	v, err := strconv.Atoi(rest[:n])
	if err != nil {
		return 0
	}
	return v
}

func (t Target) String() string {
	if t.Arch == "" {
		return t.Kind
	}
	return t.Kind + " -arch=" + t.Arch
}
