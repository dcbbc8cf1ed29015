package dispatch

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/tilels/tilels/dispatch/layout"
	"github.com/tilels/tilels/dsl/source"
	"github.com/tilels/tilels/ir"
	"github.com/tilels/tilels/release"
)

// Target names the code generator a call is dispatched for: Kind is TVM's
// target kind name ("cuda"), Arch its arch string ("sm_90a").
type Target struct {
	Kind, Arch string
	// Release is the reference release whose registry and algorithms
	// dispatch the call (the zero value is the seeds' 0.25.0.post1).
	Release release.Release
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

// ForeignTarget tells a kernel written for another target than CUDA: kind
// is the target ("trn" for AWS Trainium: a buffer in a `trn.*` storage
// scope, or a layout over Trainium's partition/free axes P and F), why
// says which buffer showed it and span where. kind is "" for a CUDA
// kernel. Such a kernel is never dispatched as CUDA: the reference lowers
// it only under a Trainium target, with other variants.
func ForeignTarget(fn *ir.Func) (kind, why string, span source.Span) {
	check := func(b *ir.Buffer, at source.Span) bool {
		if b == nil || kind != "" {
			return kind != ""
		}
		if strings.HasPrefix(b.Scope, "trn.") {
			kind, why, span = "trn", fmt.Sprintf("buffer %s has scope %s", b.Name, b.Scope), at
			return true
		}
		if b.Layout != nil {
			t := layout.ToTile(b.Layout)
			for _, its := range [][]layout.Iter{t.Shard, t.Replica} {
				for _, it := range its {
					if it.Axis == layout.P || it.Axis == layout.F {
						kind, why, span = "trn", fmt.Sprintf("buffer %s is laid out over the Trainium axis %s", b.Name, it.Axis.Name), at
						return true
					}
				}
			}
		}
		return false
	}
	for _, p := range fn.Params {
		if check(p.Buf, p.Span) {
			return
		}
	}
	ir.WalkStmts(fn.Body, func(s ir.Stmt) {
		if kind != "" {
			return
		}
		switch s := s.(type) {
		case *ir.Alloc:
			check(s.Buf, s.Span)
		case *ir.Decl:
			check(s.Buf, s.Span)
		}
	})
	return
}
