package syntax

import (
	"github.com/tilels/tilels/dsl/diag"
	"github.com/tilels/tilels/dsl/source"
)

// Parse parses f. It never fails; the returned *File is never nil.
func Parse(f *source.File) (*File, []diag.Diagnostic) {
	return &File{Src: f}, nil
}
