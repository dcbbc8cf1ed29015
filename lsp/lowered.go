package lsp

import (
	"fmt"
	"net/url"
	"strings"

	"go.lsp.dev/uri"
)

// loweredScheme is the scheme of the virtual documents that show lowered
// output (LSP 3.18 workspace/textDocumentContent):
//
//	tilels-lowered:///path/to/kernel.py.cu               the whole file's CUDA
//	tilels-lowered:///path/to/kernel.py.cu?kernel=NAME   one kernel's CUDA
//	tilels-lowered:///path/to/kernel.py.tirx             the lowered TIRx
//	tilels-lowered:///path/to/kernel.py.ptx?kernel=NAME  its PTX (nvcc; machine.go)
//	tilels-lowered:///path/to/kernel.py.sass?kernel=NAME its SASS
//
// A source that is not a file (an untitled buffer) is named in the query:
// ?source=<its URI>.
const loweredScheme = "tilels-lowered"

// loweredRef is what a tilels-lowered URI names.
type loweredRef struct {
	source uri.URI
	kind   string // "cu", "tirx", "ptx" or "sass"
	kernel string // "" for every kernel
}

func loweredURI(src uri.URI, kind, kernel string) uri.URI {
	c := uri.Components{Scheme: loweredScheme}
	q := url.Values{}
	if src.IsFile() {
		c.Path = src.Path() + "." + kind
	} else {
		c.Path = "/" + uri.Basename(src) + "." + kind
		q.Set("source", string(src))
	}
	if kernel != "" {
		q.Set("kernel", kernel)
	}
	c.Query = q.Encode()
	u, err := uri.From(c)
	if err != nil {
		return uri.URI(loweredScheme + ":" + c.Path)
	}
	return u
}

func parseLoweredURI(u uri.URI) (loweredRef, error) {
	if u.Scheme() != loweredScheme {
		return loweredRef{}, fmt.Errorf("not a %s URI: %s", loweredScheme, u)
	}
	q, err := url.ParseQuery(u.Query())
	if err != nil {
		return loweredRef{}, fmt.Errorf("bad query in %s: %w", u, err)
	}
	path := u.Path()
	ref := loweredRef{kernel: q.Get("kernel")}
	switch {
	case strings.HasSuffix(path, ".cu"):
		ref.kind, path = "cu", strings.TrimSuffix(path, ".cu")
	case strings.HasSuffix(path, ".tirx"):
		ref.kind, path = "tirx", strings.TrimSuffix(path, ".tirx")
	case strings.HasSuffix(path, ".ptx"), strings.HasSuffix(path, ".sass"):
		ref.kind = path[strings.LastIndexByte(path, '.')+1:] // machine.go
		path = strings.TrimSuffix(path, "."+ref.kind)
	default:
		return loweredRef{}, fmt.Errorf("%s names no .cu, .tirx, .ptx or .sass output", u)
	}
	if s := q.Get("source"); s != "" {
		src, err := uri.Parse(s)
		if err != nil {
			return loweredRef{}, fmt.Errorf("bad source in %s: %w", u, err)
		}
		ref.source = src
	} else {
		ref.source = uri.File(path)
	}
	return ref, nil
}

// cuName is the file the "Write lowered CUDA" action creates beside the
// source: kernel.py -> kernel.cu (kernel.NAME.cu for one kernel).
func cuName(base, kernel string) string {
	stem := strings.TrimSuffix(base, ".py")
	if kernel != "" {
		stem += "." + kernel
	}
	return stem + ".cu"
}
